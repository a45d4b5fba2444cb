import type { DatabaseHandle } from "../db/client.ts";
import { ApiKeyRepository } from "../db/repositories/api-keys.ts";
import { NotFoundError } from "../errors.ts";

// GET /v1/platform/usage (SPEC "Public API"): requests are counted per key by
// ApiKeyService.verify (api_keys.request_count), so the count covers every request the key
// authenticated, on either API, this one included (docs/decisions.md "Public API and live events").

export interface ApiUsage {
  apiKey: {
    id: string;
    name: string;
    prefix: string;
    scopes: string[];
    requestCount: number;
    /** Stamped at most once a minute (PRODUCT.md §2). */
    lastUsedAt: string | null;
    createdAt: string;
  };
  /** The key owner's totals across all their keys. */
  user: { apiKeys: number; requestCount: number; agents: number };
}

export function apiUsage(h: Pick<DatabaseHandle, "db" | "sqlite">, userId: string, apiKeyId: string): ApiUsage {
  const keys = new ApiKeyRepository(h.db, h.sqlite);
  const key = keys.owned(userId, apiKeyId);
  if (!key) throw new NotFoundError("API key not found"); // deleted between verification and here
  const totals = keys.ownerTotals(userId);
  return {
    apiKey: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      requestCount: key.requestCount,
      lastUsedAt: key.lastUsedAt,
      createdAt: key.createdAt,
    },
    user: { apiKeys: totals.keys, requestCount: totals.requests, agents: totals.agents },
  };
}

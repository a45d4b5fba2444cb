import type { Database } from "bun:sqlite";
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

export function apiUsage(h: { sqlite: Database }, userId: string, apiKeyId: string): ApiUsage {
  const key = h.sqlite
    .query<
      {
        id: string;
        name: string;
        prefix: string;
        scopes: string;
        request_count: number;
        last_used_at: string | null;
        created_at: string;
      },
      [string, string]
    >(
      "SELECT id, name, prefix, scopes, request_count, last_used_at, created_at FROM api_keys WHERE id = ? AND user_id = ?",
    )
    .get(apiKeyId, userId);
  if (!key) throw new NotFoundError("API key not found"); // deleted between verification and here
  const totals = h.sqlite
    .query<{ keys: number; requests: number; agents: number }, [string, string]>(
      `SELECT (SELECT count(*) FROM api_keys WHERE user_id = ?1) AS keys,
              (SELECT coalesce(sum(request_count), 0) FROM api_keys WHERE user_id = ?1) AS requests,
              (SELECT count(*) FROM agents WHERE user_id = ?2) AS agents`,
    )
    .get(userId, userId)!;
  return {
    apiKey: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: JSON.parse(key.scopes) as string[],
      requestCount: key.request_count,
      lastUsedAt: key.last_used_at,
      createdAt: key.created_at,
    },
    user: { apiKeys: totals.keys, requestCount: totals.requests, agents: totals.agents },
  };
}

import { randomInt } from "node:crypto";
import { type Clock, isoNow } from "../clock.ts";
import type { DatabaseHandle } from "../db/client.ts";
import { ApiKeyRepository } from "../db/repositories/api-keys.ts";
import { credentialStamp } from "../db/repositories/table-writes.ts";
import { AuthenticationError, AuthorizationError, ConflictError, NotFoundError } from "../errors.ts";
import { digestsEqual, sha256Hex } from "./hashing.ts";
import { hasScope, type Scope } from "./scopes.ts";

// API keys (SPEC "API keys", PRODUCT.md §2): svc_ + 32 CSPRNG characters over [A-Za-z0-9];
// prefix = first 8 characters; only the SHA-256 hex digest is stored.

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LAST_USED_EVERY_MS = 60_000;

export function generateApiKey(): string {
  let out = "svc_";
  // randomInt draws uniformly (rejection sampling inside), so no modulo bias.
  for (let i = 0; i < 32; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  lastUsedAt: string | null;
  createdAt: string;
}

export interface VerifiedApiKey {
  apiKeyId: string;
  userId: string;
  scopes: Scope[];
}

/**
 * Verified keys by digest, each with the credential stamp it was verified under. The lookup (a
 * join of the key and its owner) was the largest per-request cost of POST /trading-signals
 * (docs/decisions.md "Performance"); the stamp (one statement) is read on every request
 * instead, and any change to a key or its owner — by this process or another — moves it, so a
 * deleted key, a changed scope or a deactivated owner is refused on the very next request.
 */
const MAX_VERIFIED = 10_000;

interface VerifiedEntry extends VerifiedApiKey {
  stamp: string;
}

export class ApiKeyService {
  private readonly lastUsedWritten = new Map<string, number>();
  private readonly keys: ApiKeyRepository;
  private readonly verified = new Map<string, VerifiedEntry>();
  private readonly stamp: () => string;

  constructor(
    database: DatabaseHandle,
    private readonly clock: Clock,
  ) {
    this.keys = new ApiKeyRepository(database.db, database.sqlite);
    this.stamp = credentialStamp(database.sqlite);
  }

  create(userId: string, name: string, scopes: Scope[]): ApiKeyView & { key: string } {
    const key = generateApiKey();
    const row = {
      id: crypto.randomUUID(),
      userId,
      name,
      keyHash: sha256Hex(key),
      prefix: key.slice(0, 8),
      scopes: [...new Set(scopes)],
      createdAt: isoNow(this.clock),
    };
    try {
      this.keys.insert(row);
    } catch (err) {
      if (String(err).includes("UNIQUE")) throw new ConflictError("API key name already exists");
      throw err;
    }
    return {
      id: row.id,
      name,
      key,
      prefix: row.prefix,
      scopes: row.scopes,
      lastUsedAt: null,
      createdAt: row.createdAt,
    };
  }

  list(userId: string): ApiKeyView[] {
    return this.keys.listOf(userId);
  }

  get(userId: string, id: string): ApiKeyView {
    const row = this.keys.ownedListing(userId, id);
    if (!row) throw new NotFoundError("API key not found");
    return row;
  }

  delete(userId: string, id: string): void {
    if (!this.keys.deleteOwned(userId, id)) throw new NotFoundError("API key not found");
    this.lastUsedWritten.delete(id);
  }

  /**
   * SPEC "API keys" verification: hash, look up, compare digests in constant time, active owner,
   * then scope. Also counts the request (public API usage) and stamps lastUsedAt at most once a
   * minute per key.
   */
  verify(rawKey: string | undefined, required: Scope | null, opts: { countUse?: boolean } = {}): VerifiedApiKey {
    if (!rawKey) throw new AuthenticationError("API key required");
    const digest = sha256Hex(rawKey);
    const key = this.lookUp(digest);
    if (required && !hasScope(key.scopes, required)) {
      throw new AuthorizationError(`API key missing required scope: ${required}`);
    }
    if (opts.countUse !== false) this.recordUse(key.apiKeyId);
    return { apiKeyId: key.apiKeyId, userId: key.userId, scopes: key.scopes };
  }

  /** The key with that digest and an active owner, remembered while the credential stamp holds. */
  private lookUp(digest: string): VerifiedApiKey {
    const stamp = this.stamp();
    const hit = this.verified.get(digest);
    if (hit && hit.stamp === stamp) return hit;
    const row = this.keys.byDigest(digest);
    if (!row || !digestsEqual(row.keyHash, digest) || !row.ownerActive) {
      if (hit) this.verified.delete(digest);
      throw new AuthenticationError("Invalid API key");
    }
    const entry = { apiKeyId: row.id, userId: row.userId, scopes: JSON.parse(row.scopes) as Scope[], stamp };
    // Bounded: when full, the oldest insertion goes (Map keeps insertion order).
    if (!hit && this.verified.size >= MAX_VERIFIED) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(digest, entry);
    return entry;
  }

  /** Keys remembered as verified (for tests and the cache report). */
  get verifiedSize(): number {
    return this.verified.size;
  }

  /**
   * Counts `count` requests of the key (and stamps lastUsedAt at most once a minute). verify() does it
   * unless told not to: the signal intake counts inside its group commit (src/signals/signal-intake.ts).
   */
  recordUse(id: string, count = 1): void {
    const now = this.clock.now();
    const last = this.lastUsedWritten.get(id) ?? 0;
    if (now - last >= LAST_USED_EVERY_MS) {
      this.lastUsedWritten.set(id, now);
      this.keys.countRequestsAndStamp(id, count, new Date(now).toISOString());
    } else {
      this.keys.countRequests(id, count);
    }
  }

  /** For the CLI `api-key create --email`: the user id of an email, or null. */
  userIdByEmail(email: string): string | null {
    return this.keys.userIdByEmail(email.trim().toLowerCase());
  }
}

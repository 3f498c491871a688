import { type ApiKeyRecord, CairnError, type Principal } from "@cairn/contracts";
import type pg from "pg";
import { hashApiKey } from "./api-key-secret.ts";
import { findActiveApiKey, principalOf } from "./api-key-store.ts";

export type AuthenticatedKey = { keyId: string; principal: Principal; record: ApiKeyRecord };

export type Authenticator = {
  /** Resolves the `Authorization` header to a key; throws `unauthenticated` otherwise. */
  authenticate(authorization: string | undefined): Promise<AuthenticatedKey>;
  /** Forgets every cached key (a revocation is otherwise seen within `cacheMs`). */
  clear(): void;
};

export type AuthenticatorOptions = {
  /** How long a looked-up key (or a miss) is trusted before Postgres is asked again. */
  cacheMs: number;
  maxEntries?: number;
};

type CacheEntry = { key: AuthenticatedKey | undefined; expiresAt: number };

export function bearerToken(authorization: string | undefined): string | undefined {
  if (!authorization) return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}

/**
 * Checks Bearer keys against the `api_keys` table, caching answers briefly so a busy agent
 * does not cost a query per request. Misses are cached for a shorter time.
 */
export function createAuthenticator(
  pool: Pick<pg.Pool, "query">,
  options: AuthenticatorOptions,
): Authenticator {
  const cache = new Map<string, CacheEntry>();
  const maxEntries = options.maxEntries ?? 10_000;
  const missMs = Math.min(options.cacheMs, 1000);

  return {
    async authenticate(authorization) {
      const token = bearerToken(authorization);
      if (!token) {
        throw new CairnError("unauthenticated", "an API key is required", {
          hint: "send the header `Authorization: Bearer <key>`; create a key with `pnpm cairn keys create`",
        });
      }
      const hash = hashApiKey(token);
      const now = Date.now();
      let entry = cache.get(hash);
      if (!entry || entry.expiresAt <= now) {
        const record = await findActiveApiKey(pool, hash);
        const key = record ? { keyId: record.id, principal: principalOf(record), record } : undefined;
        entry = { key, expiresAt: now + (key ? options.cacheMs : missMs) };
        if (cache.size >= maxEntries) cache.clear();
        cache.set(hash, entry);
      }
      if (!entry.key) {
        throw new CairnError("unauthenticated", "the API key is unknown or revoked", {
          hint: "check the key, or ask an admin for a new one",
        });
      }
      return entry.key;
    },
    clear() {
      cache.clear();
    },
  };
}

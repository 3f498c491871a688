// The `api_keys` table (migration infra/migrations/2026-11-30T03-api-keys.ts). Used by the
// gateway to authenticate and by `pnpm cairn keys` to manage keys.
import { createHash, randomUUID } from "node:crypto";
import {
  type ApiKeyRecord,
  CairnError,
  type CreateApiKeyRequest,
  CreateApiKeyRequestSchema,
  type CreatedApiKey,
  type Principal,
} from "@cairn/contracts";
import type pg from "pg";
import { displayPrefix, generateApiKey, hashApiKey, isAcceptableKey } from "./api-key-secret.ts";

type Queryable = Pick<pg.Pool, "query"> | Pick<pg.PoolClient, "query">;

type ApiKeyRow = {
  id: string;
  key_prefix: string;
  tenant: string;
  agent: string;
  role: "agent" | "reviewer" | "admin";
  is_primary: boolean;
  label: string | null;
  created_at: Date;
  revoked_at: Date | null;
};

const columns = "id, key_prefix, tenant, agent, role, is_primary, label, created_at, revoked_at";

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    keyPrefix: row.key_prefix,
    tenant: row.tenant,
    agent: row.agent,
    role: row.role,
    primary: row.is_primary,
    label: row.label,
    createdAt: row.created_at.toISOString(),
    revokedAt: row.revoked_at?.toISOString() ?? null,
  };
}

export function principalOf(record: ApiKeyRecord): Principal {
  return { tenant: record.tenant, agent: record.agent, role: record.role, primary: record.primary };
}

function asMissingTable(error: unknown): never {
  if ((error as { code?: string }).code === "42P01") {
    throw new CairnError("unavailable", "the api_keys table does not exist", {
      hint: "apply the migrations first: pnpm cairn migrate",
      cause: error,
    });
  }
  throw error;
}

/**
 * The id of a key created with a client's idempotency key: the same on every retry, so a retry
 * finds the key the first request made (laid out as a version 8 UUID, valid wherever one is).
 */
export function apiKeyIdFor(tenant: string, idempotencyKey: string): string {
  const hex = createHash("sha256")
    .update(`cairn-api-key\u0000${tenant}\u0000${idempotencyKey}`)
    .digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export type CreateApiKeyOptions = {
  /**
   * The client's idempotency key: the new key's id is derived from it, and a retry creates
   * nothing. The key itself is shown only once, so a retry is refused (`idempotency_conflict`)
   * with the id of the key the first request created.
   */
  idempotencyKey?: string | undefined;
};

/** Creates a key (a fresh random one unless `key` is given) and returns it once. */
export async function createApiKey(
  db: Queryable,
  request: CreateApiKeyRequest,
  key: string = generateApiKey(),
  options: CreateApiKeyOptions = {},
): Promise<CreatedApiKey> {
  const parsed = CreateApiKeyRequestSchema.parse(request);
  if (!isAcceptableKey(key)) {
    throw new CairnError("validation_failed", "an API key must be 24-200 printable characters", {
      hint: "leave the key out to have one generated",
    });
  }
  const id =
    options.idempotencyKey === undefined ? randomUUID() : apiKeyIdFor(parsed.tenant, options.idempotencyKey);
  const result = await db
    .query<ApiKeyRow>(
      `insert into api_keys (id, key_hash, key_prefix, tenant, agent, role, is_primary, label)
       values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (id) do nothing returning ${columns}`,
      [
        id,
        hashApiKey(key),
        displayPrefix(key),
        parsed.tenant,
        parsed.agent,
        parsed.role,
        parsed.primary,
        parsed.label,
      ],
    )
    .catch(asMissingTable);
  const row = result.rows[0];
  if (!row && options.idempotencyKey !== undefined) {
    throw new CairnError("idempotency_conflict", "an API key was already created with this idempotency key", {
      hint: `a key is shown only once: if the first answer was lost, revoke key ${id} and create another with a new idempotency key`,
      details: { id },
    });
  }
  if (!row) throw new CairnError("internal", "inserting the API key returned no row");
  return { record: toRecord(row), key };
}

export type ListApiKeysOptions = { tenant?: string | undefined; includeRevoked?: boolean };

export async function listApiKeys(db: Queryable, options: ListApiKeysOptions = {}): Promise<ApiKeyRecord[]> {
  const result = await db
    .query<ApiKeyRow>(
      `select ${columns} from api_keys
       where ($1::text is null or tenant = $1) and ($2 or revoked_at is null)
       order by created_at, id`,
      [options.tenant ?? null, options.includeRevoked ?? false],
    )
    .catch(asMissingTable);
  return result.rows.map(toRecord);
}

/** Revokes a key by id or by its listed prefix; revoking twice is harmless. */
export async function revokeApiKey(
  db: Queryable,
  idOrPrefix: string,
  options: { tenant?: string | undefined } = {},
): Promise<ApiKeyRecord> {
  const byId = /^[0-9a-f-]{36}$/i.test(idOrPrefix);
  const matches = await db
    .query<ApiKeyRow>(
      `select ${columns} from api_keys
       where ${byId ? "id = $1::uuid" : "key_prefix = $1"} and ($2::text is null or tenant = $2)`,
      [idOrPrefix, options.tenant ?? null],
    )
    .catch(asMissingTable);
  if (matches.rows.length === 0) {
    throw new CairnError("not_found", `no API key ${idOrPrefix}`, { hint: "list the keys to find its id" });
  }
  if (matches.rows.length > 1) {
    throw new CairnError("validation_failed", `${idOrPrefix} matches ${matches.rows.length} keys`, {
      hint: "revoke by id",
    });
  }
  const id = matches.rows[0]!.id;
  const result = await db.query<ApiKeyRow>(
    `update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 returning ${columns}`,
    [id],
  );
  return toRecord(result.rows[0]!);
}

/** The active key with this hash, or undefined. */
export async function findActiveApiKey(db: Queryable, keyHash: string): Promise<ApiKeyRecord | undefined> {
  const result = await db
    .query<ApiKeyRow>(`select ${columns} from api_keys where key_hash = $1 and revoked_at is null`, [keyHash])
    .catch(asMissingTable);
  const row = result.rows[0];
  return row ? toRecord(row) : undefined;
}

export async function countActiveAdminKeys(db: Queryable): Promise<number> {
  const result = await db
    .query<{ n: string }>(`select count(*) as n from api_keys where role = 'admin' and revoked_at is null`)
    .catch(asMissingTable);
  return Number(result.rows[0]?.n ?? 0);
}

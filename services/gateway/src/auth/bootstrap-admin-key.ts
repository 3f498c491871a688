import type { Logger } from "@cairn/telemetry";
import type pg from "pg";
import { createApiKey } from "./api-key-store.ts";

export type BootstrapOptions = {
  /** `CAIRN_ADMIN_KEY`: the key to create; a random one when unset. */
  adminKey: string | undefined;
  tenant: string;
  /** Where a generated key is shown, once. */
  print: (line: string) => void;
};

export type BootstrapOutcome = { created: false } | { created: true; generated: boolean; keyId: string };

/**
 * Local mode's first start: when no active admin key exists, create one, from
 * `CAIRN_ADMIN_KEY` or generated and printed once. An advisory lock keeps two gateways
 * starting together from creating two.
 */
export async function bootstrapAdminKey(
  pool: pg.Pool,
  logger: Logger,
  options: BootstrapOptions,
): Promise<BootstrapOutcome> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    await client.query("select pg_advisory_xact_lock(hashtext('cairn.api_keys.bootstrap'))");
    const existing = await client.query<{ n: string }>(
      "select count(*) as n from api_keys where role = 'admin' and revoked_at is null",
    );
    if (Number(existing.rows[0]?.n ?? 0) > 0) {
      await client.query("commit");
      return { created: false };
    }
    const created = await createApiKey(
      client,
      { tenant: options.tenant, agent: "admin", role: "admin", primary: true, label: "bootstrap admin key" },
      ...(options.adminKey ? [options.adminKey] : []),
    );
    await client.query("commit");
    logger.info(
      { keyId: created.record.id, tenant: options.tenant, fromEnv: Boolean(options.adminKey) },
      "created the admin API key",
    );
    if (!options.adminKey) {
      options.print(
        [
          "",
          "  Cairn created an admin API key. It is shown only this once; keep it:",
          "",
          `    ${created.key}`,
          "",
          `  tenant ${options.tenant}, agent admin. Create agent keys with \`pnpm cairn keys create\`.`,
          "",
        ].join("\n"),
      );
    }
    return { created: true, generated: !options.adminKey, keyId: created.record.id };
  } catch (error) {
    await client.query("rollback").catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}

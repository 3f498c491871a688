import { eventStreamReplicasSetting } from "@cairn/bus";
import { baseEnvSchema } from "@cairn/service-runtime";
import { z } from "zod";

export const ingestEnvSchema = baseEnvSchema.extend({
  /** Role the service's connections run as; empty keeps the login user's rights. */
  CAIRN_DB_ROLE: z.string().default("cairn_app"),
  CAIRN_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  /** Signs dry-run tokens; when unset, a secret kept in Postgres (shared by every copy). */
  CAIRN_TOKEN_SECRET: z.string().min(32, "CAIRN_TOKEN_SECRET needs at least 32 characters").optional(),
  /** `0` runs this copy without a relay (another copy, or a separate process, relays). */
  CAIRN_RELAY: z.enum(["0", "1"]).default("1"),
  /** Servers that keep the event stream: the relay brings the stream to this many (3 in a NATS cluster). */
  CAIRN_EVENT_STREAM_REPLICAS: eventStreamReplicasSetting,
  /** Apply pending migrations at start (development); deployments run `pnpm cairn migrate`. */
  CAIRN_MIGRATE_ON_START: z.enum(["0", "1"]).default("0"),
});
export type IngestEnv = z.infer<typeof ingestEnvSchema>;

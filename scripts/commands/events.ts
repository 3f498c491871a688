import {
  createDatabasePool,
  lastPosition,
  readAll,
  readCheckpoint,
  readStream,
  serviceDatabaseRole,
} from "@cairn/event-store";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "show the event log (tail, one stream) and how far the relay has published";

const usage = `usage: pnpm cairn events [--after N] [--limit N] [--stream STREAM_ID] [--json]

Prints events of the log in CAIRN_DATABASE_URL, oldest first: by default the last 20,
from a position with --after, or every event of one stream with --stream (e.g.
memory-<uuid>). Also prints the last readable position and the relay's checkpoint.
--json prints one event per line as stored (the envelope the relay publishes).`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
}

export async function run(args: string[]): Promise<number> {
  if (args.includes("--help")) {
    console.log(usage);
    return 0;
  }
  const env = parseEnv(baseEnvSchema);
  const limit = Number(option(args, "limit") ?? 20);
  const afterOption = option(args, "after");
  const stream = option(args, "stream");
  if (!Number.isInteger(limit) || limit <= 0 || (afterOption !== undefined && !/^\d+$/.test(afterOption))) {
    console.error(usage);
    return 2;
  }
  const pool = createDatabasePool({
    connectionString: env.CAIRN_DATABASE_URL,
    role: serviceDatabaseRole,
    max: 1,
  });
  try {
    const last = await lastPosition(pool);
    const relayed = await readCheckpoint(pool, "relay:jetstream");
    const events = stream
      ? await readStream(pool, stream)
      : await readAll(pool, {
          after: afterOption === undefined ? Math.max(0, last - limit) : Number(afterOption),
          limit,
        });
    if (args.includes("--json")) {
      for (const e of events) console.log(JSON.stringify(e));
      return 0;
    }
    for (const e of events) {
      console.log(
        [
          String(e.position).padStart(8),
          e.meta.recordedAt,
          e.meta.tenant.padEnd(12),
          `${e.streamId}@${e.version}`.padEnd(52),
          e.type,
        ].join("  "),
      );
    }
    console.log(
      `\nlast readable position ${last}; relay published up to ${relayed}${
        last > relayed ? ` (${last - relayed} behind)` : ""
      }`,
    );
    return 0;
  } finally {
    await pool.end();
  }
}

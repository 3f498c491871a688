// `pnpm cairn rebuild [--projection lexical|vector|all]`: rebuilds the search service's read
// models from the Postgres log into new generations while the old ones keep serving, then
// switches over. Uses the search service's settings (CAIRN_REDIS_URL, CAIRN_DATABASE_URL,
// CAIRN_REDIS_PREFIX, CAIRN_EMBEDDER and CAIRN_EMBEDDING_*): changing the embedding model is
// a rebuild of the vector projection with the new settings.
import { type ProjectionName, projectionNames } from "@cairn/contracts";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";
import { searchEnvSchema } from "../../services/search/src/env.ts";
import { openReadModels } from "../../services/search/src/open-read-models.ts";
import {
  RebuildAbortedError,
  type RebuildProgress,
  rebuildProjection,
} from "../../services/search/src/rebuild/rebuild-projection.ts";

export const summary = "rebuild search read models (lexical, vector) from the event log";

const usage = `usage: pnpm cairn rebuild [--projection lexical|vector|all] [--batch-size N]

Replays the event log into a new generation of each read model while the current one keeps
serving queries, switches over, and drops the old one. Safe to interrupt (Ctrl-C) and run
again: the next run continues where this one stopped.

  --projection   which read model (default: all)
  --batch-size   events per write (default 500)`;

function option(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  if (i >= 0) return args[i + 1];
  const inline = args.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "?";
  if (seconds < 60) return `${Math.round(seconds)}s`;
  const m = Math.floor(seconds / 60);
  return m < 60
    ? `${m}m${String(Math.round(seconds % 60)).padStart(2, "0")}s`
    : `${Math.floor(m / 60)}h${m % 60}m`;
}

/** A progress line: bar, position, events per second and time left. */
export function progressLine(p: RebuildProgress, now = performance.now()): string {
  const elapsed = Math.max((now - p.startedAt) / 1000, 1e-3);
  const rate = p.events / elapsed;
  const fraction = p.target > 0 ? Math.min(1, p.position / p.target) : 1;
  const width = 24;
  const filled = Math.round(fraction * width);
  const bar = `${"#".repeat(filled)}${"-".repeat(width - filled)}`;
  const left = rate > 0 ? (p.target - p.position) / rate : Number.POSITIVE_INFINITY;
  const phase = p.phase === "replay" ? "" : ` ${p.phase}`;
  return `${p.projection.padEnd(7)} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${p.position}/${p.target} ${rate.toFixed(0)} ev/s eta ${p.phase === "done" ? "0s" : formatDuration(left)}${phase}`;
}

export async function run(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    return 0;
  }
  const which = option(args, "--projection") ?? "all";
  if (which !== "all" && !(projectionNames as readonly string[]).includes(which)) {
    console.error(`unknown projection ${which}\n\n${usage}`);
    return 2;
  }
  const batchSize = Number(option(args, "--batch-size") ?? 500);
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    console.error(`--batch-size must be a positive integer\n\n${usage}`);
    return 2;
  }
  const env = parseEnv(searchEnvSchema);
  const logger = createLogger("rebuild", env.CAIRN_LOG_LEVEL === "info" ? "warn" : env.CAIRN_LOG_LEVEL);
  const names: ProjectionName[] = which === "all" ? [...projectionNames] : [which as ProjectionName];

  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write("\nstopping after the current batch (run again to continue)...\n");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const models = await openReadModels(env, logger);
  const tty = process.stderr.isTTY;
  let lastPrint = 0;
  try {
    for (const name of names) {
      const target = name === "lexical" ? models.lexical : models.vector;
      const result = await rebuildProjection({
        target,
        log: models.eventLog,
        pool: models.pool,
        batchSize,
        signal: abort.signal,
        onProgress: (p) => {
          const now = performance.now();
          if (p.phase === "replay" && now - lastPrint < (tty ? 100 : 2000)) return;
          lastPrint = now;
          const line = progressLine(p, now);
          if (tty) process.stderr.write(`\r${line}\u001b[K${p.phase === "done" ? "\n" : ""}`);
          else process.stderr.write(`${line}\n`);
        },
      });
      console.log(
        `${name}: generation ${result.generation} serving at position ${result.position}` +
          ` (${result.events} events in ${result.seconds.toFixed(1)} s, ${(result.events / Math.max(result.seconds, 1e-3)).toFixed(0)} events/s${result.resumed ? ", resumed" : ""})` +
          (result.previous === null ? "" : `; generation ${result.previous} dropped`),
      );
    }
    return 0;
  } catch (error) {
    if (error instanceof RebuildAbortedError) {
      console.error("rebuild interrupted; run it again to continue where it stopped");
      return 130;
    }
    console.error(`rebuild failed: ${(error as Error).message}`);
    return 1;
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    await models.close();
  }
}

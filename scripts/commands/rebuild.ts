// `pnpm cairn rebuild [--projection <name>|all]`: rebuilds read models from the Postgres log into
// new generations while the old ones keep serving, then switches over. Any projection of any
// service: search's lexical and vector indexes, ranking's signals and key graph, maintenance's
// view. Each is opened with its own service's settings (the same environment the service reads):
// changing the embedding model is a rebuild of the vector projection with the new settings.
import {
  type ProjectionName,
  projectionNames,
  projectionService,
  projectionShortNames,
  resolveProjectionName,
} from "@cairn/contracts";
import { maintenanceEnvSchema, openMaintenanceProjections } from "@cairn/maintenance";
import {
  type ProjectionHost,
  RebuildAbortedError,
  type RebuildProgress,
  rebuildFromHost,
} from "@cairn/projection-runtime";
import { openRankingProjections, rankingEnvSchema } from "@cairn/ranking";
import { openSearchProjections, searchEnvSchema } from "@cairn/search";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger, type Logger } from "@cairn/telemetry";

export const summary = "rebuild any read model from the event log while it keeps serving";

const usage = `usage: pnpm cairn rebuild [--projection <name>|all] [--batch-size N]

Replays the event log into a new generation of each read model while the current one keeps
serving, switches over, and drops the old one. Safe to interrupt (Ctrl-C) and run again: the
next run continues where this one stopped.

  --projection   ${projectionNames.join(", ")}, all (default),
                 or a short name: ${Object.keys(projectionShortNames).join(", ")}
  --batch-size   events per write (default 500)

Each read model is opened with its service's settings from the environment (CAIRN_DATABASE_URL,
CAIRN_REDIS_URL, CAIRN_REDIS_PREFIX, CAIRN_RANKING_REDIS_PREFIX, CAIRN_EMBEDDER, …).`;

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
  return `${p.projection.padEnd(16)} [${bar}] ${(fraction * 100).toFixed(0).padStart(3)}% ${p.position}/${p.target} ${rate.toFixed(0)} ev/s eta ${p.phase === "done" ? "0s" : formatDuration(left)}${phase}`;
}

/** The projections of one service, opened with that service's settings. */
async function openHost(service: string, logger: Logger): Promise<ProjectionHost> {
  if (service === "search")
    return openSearchProjections(parseEnv(searchEnvSchema, process.env, { service: "search" }), logger);
  if (service === "ranking")
    return openRankingProjections(parseEnv(rankingEnvSchema, process.env, { service: "ranking" }), logger);
  if (service === "maintenance")
    return openMaintenanceProjections(
      parseEnv(maintenanceEnvSchema, process.env, { service: "maintenance" }),
      logger,
    );
  throw new Error(`${service} runs no projection`);
}

export async function run(args: string[]): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    console.log(usage);
    return 0;
  }
  const which = option(args, "--projection") ?? "all";
  const named = which === "all" ? undefined : resolveProjectionName(which);
  if (which !== "all" && named === undefined) {
    console.error(`unknown projection ${which}\n\n${usage}`);
    return 2;
  }
  const batchSize = Number(option(args, "--batch-size") ?? 500);
  if (!Number.isInteger(batchSize) || batchSize < 1) {
    console.error(`--batch-size must be a positive integer\n\n${usage}`);
    return 2;
  }
  const names: ProjectionName[] = named ? [named] : [...projectionNames];
  const logger = createLogger("rebuild", process.env.CAIRN_LOG_LEVEL ?? "warn");

  const abort = new AbortController();
  const onSignal = () => {
    if (abort.signal.aborted) process.exit(130);
    process.stderr.write("\nstopping after the current batch (run again to continue)...\n");
    abort.abort();
  };
  process.on("SIGINT", onSignal);
  process.on("SIGTERM", onSignal);

  const tty = process.stderr.isTTY;
  let lastPrint = 0;
  const hosts = new Map<string, ProjectionHost>();
  try {
    for (const name of names) {
      const service = projectionService(name);
      let host = hosts.get(service);
      if (!host) {
        host = await openHost(service, logger);
        hosts.set(service, host);
      }
      const result = await rebuildFromHost(host, name, {
        batchSize,
        signal: abort.signal,
        logger,
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
    for (const host of hosts.values()) await host.close();
  }
}

// Runs Cairn services as real child processes against test infrastructure, collecting
// their log lines so a failing test can show what a service said.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import type { ServiceName } from "@cairn/contracts";
import { withServiceNodeOptions } from "@cairn/service-runtime";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

export type ServiceProcess = {
  name: ServiceName | "run-services";
  child: ChildProcess;
  logs: string[];
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | string>;
  stop: (signal?: NodeJS.Signals) => Promise<number | string>;
};

function track(name: ServiceProcess["name"], child: ChildProcess): ServiceProcess {
  const logs: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on("line", (line) => logs.push(line));
  }
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => resolve(signal ?? code ?? 0));
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
    const result = await exited;
    clearTimeout(timer);
    return result;
  };
  return { name, child, logs, exited, stop };
}

/**
 * Starts `services/<name>/src/main.ts` with the given environment on top of the test's, from
 * this checkout or another (`cwd`: a checkout with its dependencies installed).
 */
export function spawnService(
  name: ServiceName,
  env: Record<string, string>,
  options: { cwd?: string } = {},
): ServiceProcess {
  const child = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: options.cwd ?? repoRoot,
    env: withServiceNodeOptions({ ...process.env, CAIRN_LOG_LEVEL: "info", CAIRN_METRICS_PORT: "0", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  return track(name, child);
}

/** Starts `scripts/run-services.ts` (all five services, as `pnpm start` does). */
export function spawnAllServices(env: Record<string, string>): ServiceProcess {
  const child = spawn(process.execPath, ["scripts/run-services.ts"], {
    cwd: repoRoot,
    env: { ...process.env, CAIRN_LOG_LEVEL: "info", CAIRN_METRICS_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return track("run-services", child);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

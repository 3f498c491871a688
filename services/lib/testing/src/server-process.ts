// Launching, probing and stopping the server processes behind the fixtures. Each server is
// a direct child of the test process (no pg_ctl/daemonize), so its pid is known and its
// exit observed; stdout and stderr go to a log file in the server's temp dir.
import { spawn } from "node:child_process";
import {
  accessSync,
  chownSync,
  closeSync,
  constants,
  openSync,
  readdirSync,
  readFileSync,
  statSync,
  writeSync,
} from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { trackDir, trackPid, untrackDir, untrackPid } from "./cleanup-registry.ts";
import { InfraStartError, testingErrorCodes } from "./errors.ts";

export interface RunAs {
  readonly user: string;
  readonly uid: number;
  readonly gid: number;
}

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly error?: Error;
}

export interface RunningServer {
  readonly pid: number;
  readonly exited: Promise<ProcessExit>;
  exitInfo(): ProcessExit | undefined;
  /** Whether the process keeps the event loop alive: yes while starting or stopping, no while serving. */
  holdEventLoop(hold: boolean): void;
}

export interface LaunchSpec {
  /** Used in error messages: "postgres", "redis", "nats". */
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly logFile: string;
  readonly runAs?: RunAs | undefined;
  readonly env?: NodeJS.ProcessEnv | undefined;
}

export function assertExecutable(path: string, what: string, envVar: string): void {
  try {
    accessSync(path, constants.X_OK);
  } catch (cause) {
    throw new InfraStartError(`${what} not found or not executable at ${path}; install it or set ${envVar}`, {
      code: testingErrorCodes.binaryMissing,
      cause,
    });
  }
}

export function describeExit(exit: ProcessExit): string {
  if (exit.error !== undefined) return `failed to spawn: ${exit.error.message}`;
  return exit.signal !== null ? `killed by ${exit.signal}` : `exited with code ${exit.code}`;
}

export function launchServer(spec: LaunchSpec): RunningServer {
  const logFd = openSync(spec.logFile, "a");
  writeSync(logFd, `\n--- ${new Date().toISOString()} starting: ${spec.command} ${spec.args.join(" ")}\n`);
  let child: ReturnType<typeof spawn>;
  try {
    child = spawn(spec.command, spec.args, {
      cwd: spec.cwd,
      env: spec.env ?? process.env,
      stdio: ["ignore", logFd, logFd],
      ...(spec.runAs !== undefined ? { uid: spec.runAs.uid, gid: spec.runAs.gid } : {}),
    });
  } finally {
    closeSync(logFd);
  }
  let exit: ProcessExit | undefined;
  const pid = child.pid;
  const exited = new Promise<ProcessExit>((resolve) => {
    child.once("error", (error) => {
      if (exit !== undefined) return;
      exit = { code: null, signal: null, error };
      if (pid !== undefined) untrackPid(pid);
      resolve(exit);
    });
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      if (pid !== undefined) untrackPid(pid);
      resolve(exit);
    });
  });
  const holdEventLoop = (hold: boolean) => (hold ? child.ref() : child.unref());
  if (pid === undefined) {
    // spawn failed synchronously enough that there is no pid; the 'error' event follows.
    return { pid: -1, exited, exitInfo: () => exit, holdEventLoop };
  }
  trackPid(pid);
  return { pid, exited, exitInfo: () => exit, holdEventLoop };
}

export async function readLogTail(logFile: string, maxLines = 40): Promise<string> {
  try {
    const text = await readFile(logFile, "utf8");
    return text.trimEnd().split("\n").slice(-maxLines).join("\n");
  } catch {
    return "(no log)";
  }
}

async function startFailure(name: string, logFile: string, message: string, cause?: unknown) {
  const tail = await readLogTail(logFile);
  return new InfraStartError(`${name}: ${message}. Log ${logFile}, last lines:\n${tail}`, { logFile, cause });
}

/**
 * Polls `probe` until it returns true. Fails at once, with the log tail, if the server exits
 * first; fails with the log tail on timeout.
 */
export async function waitUntilReady(
  server: RunningServer,
  probe: () => Promise<boolean>,
  options: { name: string; logFile: string; timeoutMs: number; intervalMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  let lastError: unknown;
  for (;;) {
    const exit = server.exitInfo();
    if (exit !== undefined) {
      throw await startFailure(options.name, options.logFile, `server ${describeExit(exit)} while starting`);
    }
    try {
      if (await probe()) {
        // A forgotten stop() must not keep the test process alive; the 'exit' handler kills it.
        server.holdEventLoop(false);
        return;
      }
      lastError = undefined;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last probe error: ${lastError.message})` : "";
      throw await startFailure(
        options.name,
        options.logFile,
        `not ready after ${options.timeoutMs} ms${detail}`,
        lastError,
      );
    }
    await sleep(options.intervalMs ?? 25);
  }
}

export async function logShowsPortInUse(logFile: string): Promise<boolean> {
  return /address already in use/i.test(await readLogTail(logFile, 20));
}

export function signalQuietly(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** SIGKILL and wait until the process is reaped. */
export async function killNow(server: RunningServer): Promise<void> {
  if (server.exitInfo() !== undefined) return;
  server.holdEventLoop(true);
  signalQuietly(server.pid, "SIGKILL");
  await server.exited;
}

/** Sends `signal` (a clean shutdown), escalating to SIGKILL after `graceMs`. */
export async function terminate(
  server: RunningServer,
  signal: NodeJS.Signals,
  graceMs: number,
): Promise<void> {
  if (server.exitInfo() !== undefined) return;
  server.holdEventLoop(true);
  signalQuietly(server.pid, signal);
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), graceMs);
  });
  const outcome = await Promise.race([server.exited, timedOut]);
  clearTimeout(timer);
  if (outcome === "timeout") await killNow(server);
}

/** Children of `pid`, from /proc (Linux). */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // "pid (comm) state ppid ..." — comm may contain spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[1]) === pid) children.push(Number(entry));
    } catch {
      // raced with the process exiting
    }
  }
  return children;
}

function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0];
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}

export async function waitUntilGone(pids: readonly number[], timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive)) {
    if (Date.now() > deadline)
      throw new Error(`Processes still alive after ${timeoutMs} ms: ${pids.filter(isAlive).join(", ")}`);
    await sleep(10);
  }
}

/** The account to run PostgreSQL as: `postgres` when we are root (it refuses to run as root). */
export function resolveRunAs(user: string): RunAs {
  let passwd: string;
  try {
    passwd = readFileSync("/etc/passwd", "utf8");
  } catch (cause) {
    throw new InfraStartError(`Cannot read /etc/passwd to find user ${user}`, { cause });
  }
  for (const line of passwd.split("\n")) {
    const [name, , uid, gid] = line.split(":");
    if (name === user) return { user, uid: Number(uid), gid: Number(gid) };
  }
  throw new InfraStartError(
    `Running as root, but there is no '${user}' user to run PostgreSQL as (it refuses to run as root)`,
  );
}

export const isRoot = (): boolean => process.getuid?.() === 0;

// A dir handed to another user must be reachable by it: every ancestor needs the x bit for
// "others". os.tmpdir() may be a private dir (TMPDIR=/root/tmp); /tmp always works.
function traversableByOthers(dir: string): boolean {
  let current = dir;
  for (;;) {
    try {
      if ((statSync(current).mode & 0o001) === 0) return false;
    } catch {
      return false;
    }
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}

export interface TempDir {
  readonly path: string;
  remove(): Promise<void>;
}

export async function makeTempDir(prefix: string, owner?: RunAs): Promise<TempDir> {
  let base = tmpdir();
  if (owner !== undefined && !traversableByOthers(base)) base = "/tmp";
  const path = await mkdtemp(join(base, prefix));
  if (owner !== undefined) chownSync(path, owner.uid, owner.gid);
  trackDir(path);
  return {
    path,
    async remove() {
      await rm(path, { recursive: true, force: true });
      untrackDir(path);
    },
  };
}

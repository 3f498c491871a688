// Last-resort cleanup so no server outlives the test process that started it.
//
// Two layers: a process 'exit' handler SIGKILLs tracked servers and removes their temp dirs
// (covers a normal exit that skipped teardown), and a detached bash watchdog holding the
// read end of a pipe does the same when this process dies without running 'exit' handlers
// (SIGKILL, SIGTERM from a pool, a crash): the pipe closes, `read` sees EOF.
// The registry lives on globalThis so re-evaluated copies of this module share it.
import { type ChildProcess, spawn } from "node:child_process";
import { rmSync } from "node:fs";

interface Registry {
  pids: Set<number>;
  dirs: Set<string>;
  watchdog: ChildProcess | undefined;
  exitHandlerInstalled: boolean;
}

const registryKey = Symbol.for("@cairn/testing/cleanup-registry");
const globalSlot = globalThis as unknown as Record<symbol, Registry | undefined>;

function registry(): Registry {
  let existing = globalSlot[registryKey];
  if (existing === undefined) {
    existing = { pids: new Set(), dirs: new Set(), watchdog: undefined, exitHandlerInstalled: false };
    globalSlot[registryKey] = existing;
  }
  return existing;
}

const watchdogScript = `
declare -A pids dirs
while IFS=' ' read -r op arg; do
  case "$op" in
    pid) pids["$arg"]=1 ;;
    unpid) unset "pids[$arg]" ;;
    dir) dirs["$arg"]=1 ;;
    undir) unset "dirs[$arg]" ;;
  esac
done
if [ "\${#pids[@]}" -gt 0 ]; then kill -9 "\${!pids[@]}" 2>/dev/null; sleep 0.5; fi
for d in "\${!dirs[@]}"; do rm -rf -- "$d"; done
`;

function tellWatchdog(line: string): void {
  const reg = registry();
  if (reg.watchdog === undefined) {
    const watchdog = spawn("bash", ["-c", watchdogScript], {
      detached: true,
      stdio: ["pipe", "ignore", "ignore"],
    });
    watchdog.on("error", () => {
      reg.watchdog = undefined;
    });
    watchdog.stdin?.on("error", () => {});
    watchdog.unref();
    // An idle pipe must not keep the test process alive.
    (watchdog.stdin as unknown as { _handle?: { unref?: () => void } } | null)?._handle?.unref?.();
    reg.watchdog = watchdog;
  }
  reg.watchdog.stdin?.write(`${line}\n`);
}

function killEverythingNow(): void {
  const reg = registry();
  for (const pid of reg.pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  reg.pids.clear();
  for (const dir of reg.dirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // best effort at exit
    }
  }
  reg.dirs.clear();
}

function ensureExitHandler(): void {
  const reg = registry();
  if (reg.exitHandlerInstalled) return;
  reg.exitHandlerInstalled = true;
  process.on("exit", killEverythingNow);
}

export function trackPid(pid: number): void {
  ensureExitHandler();
  registry().pids.add(pid);
  tellWatchdog(`pid ${pid}`);
}

export function untrackPid(pid: number): void {
  if (registry().pids.delete(pid)) tellWatchdog(`unpid ${pid}`);
}

export function trackDir(dir: string): void {
  ensureExitHandler();
  registry().dirs.add(dir);
  tellWatchdog(`dir ${dir}`);
}

export function untrackDir(dir: string): void {
  if (registry().dirs.delete(dir)) tellWatchdog(`undir ${dir}`);
}

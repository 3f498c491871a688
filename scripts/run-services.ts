// Runs the five services as child processes with their log lines prefixed by service name.
// A service that dies is started again, after a pause that doubles with each death in a row
// (1 s up to 30 s; back to 1 s once a copy has run for a minute), while the others keep
// serving. Ctrl-C (or SIGTERM) stops them all gracefully.
//
// With CAIRN_NATS_AUTH_DIR (scripts/start sets it to .data/nats-auth), each service connects
// to NATS as its own bus identity, with the seed infra/local/infra.sh wrote there.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { busSeedFile } from "@cairn/bus";
import { withServiceNodeOptions } from "@cairn/service-runtime";

const root = fileURLToPath(new URL("..", import.meta.url));
const services = ["ingest", "search", "ranking", "maintenance", "gateway"] as const;
type Service = (typeof services)[number];
const colours = [36, 33, 35, 32, 34];
const width = Math.max(...services.map((s) => s.length));
const firstPauseMs = 1000;
const longestPauseMs = 30_000;
/** A copy that ran this long before it died was healthy: its next start comes after the first pause again. */
const healthyRunMs = 60_000;

const authDir = process.env.CAIRN_NATS_AUTH_DIR || undefined;
const children = new Map<Service, ChildProcess>();
const restarts = new Map<Service, NodeJS.Timeout>();
const pauses = new Map<Service, number>();
let stopping = false;

function prefix(name: string, i: number): string {
  const label = name.padEnd(width);
  return process.stdout.isTTY ? `\u001b[${colours[i]}m${label}\u001b[0m |` : `${label} |`;
}

function envOf(name: Service): NodeJS.ProcessEnv {
  const env = withServiceNodeOptions(process.env);
  if (authDir === undefined) return env;
  return { ...env, CAIRN_NATS_USER: name, CAIRN_NATS_NKEY_SEED_FILE: busSeedFile(authDir, name) };
}

function exitIfDone(): void {
  if (stopping && children.size === 0) process.exit(0);
}

function start(name: Service, i: number): void {
  const tag = prefix(name, i);
  const startedAt = Date.now();
  const child = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: root,
    env: envOf(name),
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a terminal's Ctrl-C reaches only this runner, which then
    // stops each service once, gracefully.
    detached: true,
  });
  children.set(name, child);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${tag} ${line}\n`));
  }
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (stopping) {
      exitIfDone();
      return;
    }
    const ranFor = Date.now() - startedAt;
    const pause = ranFor >= healthyRunMs ? firstPauseMs : (pauses.get(name) ?? firstPauseMs);
    pauses.set(name, Math.min(pause * 2, longestPauseMs));
    process.stdout.write(`${tag} exited (${signal ?? code}); starting it again in ${pause / 1000} s\n`);
    restarts.set(
      name,
      setTimeout(() => {
        restarts.delete(name);
        if (!stopping) start(name, i);
      }, pause),
    );
  });
}

function stopAll(): void {
  if (stopping) return;
  stopping = true;
  for (const timer of restarts.values()) clearTimeout(timer);
  restarts.clear();
  for (const child of children.values()) child.kill("SIGTERM");
  setTimeout(() => {
    for (const child of children.values()) child.kill("SIGKILL");
  }, 12_000).unref();
  exitIfDone();
}

services.forEach((name, i) => {
  start(name, i);
});

process.on("SIGINT", stopAll);
process.on("SIGTERM", stopAll);
process.on("exit", () => {
  for (const child of children.values()) child.kill("SIGKILL");
});

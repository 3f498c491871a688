// Runs the five services as child processes with their log lines prefixed by service name.
// Ctrl-C (or SIGTERM) stops them all gracefully; if one dies, the others are stopped too.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const services = ["ingest", "search", "ranking", "maintenance", "gateway"] as const;
const colours = [36, 33, 35, 32, 34];
const width = Math.max(...services.map((s) => s.length));
const children = new Map<string, ChildProcess>();
let stopping = false;
let exitCode = 0;

function prefix(name: string, i: number): string {
  const label = name.padEnd(width);
  return process.stdout.isTTY ? `\u001b[${colours[i]}m${label}\u001b[0m |` : `${label} |`;
}

function stopAll(code: number): void {
  if (stopping) return;
  stopping = true;
  exitCode = code;
  for (const child of children.values()) child.kill("SIGTERM");
  setTimeout(() => {
    for (const child of children.values()) child.kill("SIGKILL");
  }, 12_000).unref();
}

services.forEach((name, i) => {
  const child = spawn(process.execPath, [`services/${name}/src/main.ts`], {
    cwd: root,
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
    // Its own process group: a terminal's Ctrl-C reaches only this runner, which then
    // stops each service once, gracefully.
    detached: true,
  });
  children.set(name, child);
  const tag = prefix(name, i);
  for (const stream of [child.stdout, child.stderr]) {
    createInterface({ input: stream }).on("line", (line) => process.stdout.write(`${tag} ${line}\n`));
  }
  child.on("exit", (code, signal) => {
    children.delete(name);
    if (!stopping) {
      process.stdout.write(`${tag} exited (${signal ?? code}); stopping the others\n`);
      stopAll(1);
    }
    if (children.size === 0) process.exit(exitCode);
  });
});

process.on("SIGINT", () => stopAll(0));
process.on("exit", () => {
  for (const child of children.values()) child.kill("SIGKILL");
});
process.on("SIGTERM", () => stopAll(0));

// The `cairn` command line: `pnpm cairn <command> [args]`. Each command lives in
// scripts/commands/<command>.ts and exports `run(args: string[]): Promise<number>` and `summary`.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

type Command = { summary: string; run: (args: string[]) => Promise<number> };

const dir = fileURLToPath(new URL("./commands/", import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".ts") && !f.endsWith(".spec.ts"))
  .map((f) => f.slice(0, -3))
  .sort();

async function load(name: string): Promise<Command> {
  return (await import(`./commands/${name}.ts`)) as Command;
}

async function help(): Promise<void> {
  const lines = ["usage: pnpm cairn <command> [options]", "", "commands:"];
  for (const name of available) lines.push(`  ${name.padEnd(14)}${(await load(name)).summary}`);
  lines.push("", "Run `pnpm cairn <command> --help` for a command's options.");
  console.log(lines.join("\n"));
}

const [name, ...args] = process.argv.slice(2);
if (!name || name === "--help" || name === "-h" || name === "help") {
  await help();
  process.exit(name ? 0 : 2);
}
if (!available.includes(name)) {
  console.error(`unknown command: ${name}\n`);
  await help();
  process.exit(2);
}
process.exitCode = await (await load(name)).run(args);

// `pnpm bench <name> [--json] [options]`: runs test/bench/<name>.bench.ts. Each prints a
// readable table and, with --json, one JSON object as its last line.
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BenchOptionError } from "../test/bench/lib/bench-args.ts";

const dir = fileURLToPath(new URL("../test/bench/", import.meta.url));
const available = readdirSync(dir)
  .filter((f) => f.endsWith(".bench.ts"))
  .map((f) => f.slice(0, -".bench.ts".length))
  .sort();

const [name, ...args] = process.argv.slice(2);
if (!name || !available.includes(name)) {
  console.error(`usage: pnpm bench <${available.join("|")}> [--json] [options]`);
  process.exit(name === "--help" ? 0 : 2);
}
const bench = (await import(`../test/bench/${name}.bench.ts`)) as { run: (args: string[]) => Promise<void> };
try {
  await bench.run(args);
} catch (error) {
  // A bad option is the caller's to fix: its message, not a stack.
  if (!(error instanceof BenchOptionError)) throw error;
  console.error(error.message);
  process.exit(2);
}

// Writes the bus credentials into a directory (see bus-auth-files.ts): a seed per identity,
// kept once made, and the NATS authorization block from the current catalog.
// Usage: node write-bus-auth.ts <dir> [--owner <uid>:<gid>]
import { parseArgs } from "node:util";
import { writeBusAuthFiles } from "./bus-auth-files.ts";

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { owner: { type: "string" } },
});
const [dir] = positionals;
const owner = values.owner?.match(/^(\d+):(\d+)$/);
if (dir === undefined || positionals.length > 1 || (values.owner !== undefined && !owner)) {
  console.error("usage: write-bus-auth.ts <dir> [--owner <uid>:<gid>]");
  process.exit(2);
}
const { configFile, created } = await writeBusAuthFiles(dir, {
  owner: owner ? { uid: Number(owner[1]), gid: Number(owner[2]) } : undefined,
});
console.error(
  `bus credentials in ${dir}: ${created.length > 0 ? `created ${created.join(", ")}; ` : ""}permissions in ${configFile}`,
);

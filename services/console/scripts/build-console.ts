// `pnpm --filter @cairn/console build` (and the package's `prepare`, run by `pnpm install`):
// bundles the console into dist/, which the gateway serves at /console.
import { buildConsole } from "../src/build-console.ts";
import { writeConsoleDist } from "../src/console-dist.ts";

const build = await buildConsole();
await writeConsoleDist(build);
const bytes = build.files.reduce((sum, f) => sum + f.body.length, 0);
console.log(`console built into services/console/dist (${build.files.length} files, ${bytes} bytes)`);

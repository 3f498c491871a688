export type { ConsoleBuild, ConsoleFile } from "./build-console.ts";
export { buildConsole } from "./build-console.ts";
export { loadConsole, readConsoleDist, writeConsoleDist } from "./console-dist.ts";

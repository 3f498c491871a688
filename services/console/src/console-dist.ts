// The console's built files on disk (dist/, written at install) and how the gateway gets them:
// from dist/ when it was built from the sources as they are, otherwise built in memory (a
// checkout that was never installed, a source edited since, an image whose dist/ is missing).
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  buildConsole,
  type ConsoleBuild,
  consoleRoot,
  consoleSourceHash,
  contentTypeOf,
} from "./build-console.ts";

const distDir = join(consoleRoot, "dist");
const manifestName = "build.json";

type Manifest = { sourceHash: string; paths: string[] };

/** The file of a path under `/console/` ("" is the page). */
const fileName = (path: string) => (path === "" ? "index.html" : path);

/** Writes a build to dist/, replacing the one there whole (beside it first, then moved in). */
export async function writeConsoleDist(build: ConsoleBuild, dir = distDir): Promise<void> {
  const partial = `${dir}.partial-${process.pid}`;
  await rm(partial, { recursive: true, force: true });
  for (const file of build.files) {
    const target = join(partial, fileName(file.path));
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, file.body);
  }
  const manifest: Manifest = { sourceHash: build.sourceHash, paths: build.files.map((f) => f.path) };
  await writeFile(join(partial, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(partial, dir);
}

/** The build in dist/, or undefined when there is none (or an incomplete one). */
export async function readConsoleDist(dir = distDir): Promise<ConsoleBuild | undefined> {
  try {
    const manifest = JSON.parse(await readFile(join(dir, manifestName), "utf8")) as Manifest;
    const files = await Promise.all(
      manifest.paths.map(async (path) => ({
        path,
        contentType: contentTypeOf(fileName(path)),
        body: await readFile(join(dir, fileName(path))),
      })),
    );
    return { sourceHash: manifest.sourceHash, files };
  } catch {
    return undefined;
  }
}

/** The console as the gateway serves it: dist/ if it is current, else a fresh build in memory. */
export async function loadConsole(): Promise<ConsoleBuild> {
  const [sourceHash, stored] = await Promise.all([consoleSourceHash(), readConsoleDist()]);
  if (stored?.sourceHash === sourceHash) return stored;
  return buildConsole();
}

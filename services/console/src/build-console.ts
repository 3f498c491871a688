// Bundles the console's browser code (src/ui: Preact components in TSX, one stylesheet) with
// esbuild into the few files the gateway serves: the page, one script and one stylesheet, the
// last two named by their content hash so browsers may cache them for good. Runs at install
// (`pnpm install` runs the package's `prepare`, which writes dist/) and, when dist/ is missing
// or was built from other sources, in memory when the gateway starts.
import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { consoleVocabulary, vocabularyGlobal } from "./console-vocabulary.ts";

/** A file of the console: its path under `/console/` ("" is the page itself) and its bytes. */
export type ConsoleFile = { path: string; contentType: string; body: Buffer };

/** The console as built: its files and the hash of the sources they were built from. */
export type ConsoleBuild = { sourceHash: string; files: ConsoleFile[] };

export const consoleRoot = join(dirname(fileURLToPath(import.meta.url)), "..");
const uiDir = join(consoleRoot, "src", "ui");

const contentTypes: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

export function contentTypeOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return contentTypes[dot < 0 ? "" : path.slice(dot)] ?? "application/octet-stream";
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

/**
 * A hash of everything a build depends on: the browser sources, this builder, the vocabulary
 * and esbuild's version. A dist/ whose hash differs was built from something else.
 */
export async function consoleSourceHash(): Promise<string> {
  const hash = createHash("sha256");
  for (const file of [...(await filesUnder(uiDir)), fileURLToPath(import.meta.url)]) {
    hash
      .update(relative(consoleRoot, file))
      .update("\0")
      .update(await readFile(file))
      .update("\0");
  }
  hash.update(JSON.stringify(consoleVocabulary)).update(esbuild.version);
  return hash.digest("hex").slice(0, 16);
}

/** Builds the console in memory. */
export async function buildConsole(): Promise<ConsoleBuild> {
  const sourceHash = await consoleSourceHash();
  const result = await esbuild.build({
    entryPoints: { console: join(uiDir, "main.tsx") },
    bundle: true,
    write: false,
    outdir: join(consoleRoot, "dist", "assets"),
    entryNames: "[name]-[hash]",
    format: "esm",
    platform: "browser",
    // The browsers of the last few years; nothing older needs to be served.
    target: ["chrome111", "firefox115", "safari16.4"],
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    define: { [vocabularyGlobal]: JSON.stringify(consoleVocabulary) },
    legalComments: "eof",
    logLevel: "silent",
  });
  const assets = result.outputFiles.map((file) => {
    const path = relative(join(consoleRoot, "dist"), file.path).split("\\").join("/");
    return { path, contentType: contentTypeOf(path), body: Buffer.from(file.contents) };
  });
  const script = assets.find((a) => a.path.endsWith(".js"));
  const style = assets.find((a) => a.path.endsWith(".css"));
  if (!script || !style) throw new Error("the console's build made no script or no stylesheet");
  const template = await readFile(join(uiDir, "index.html"), "utf8");
  const page = template
    .replace("%SCRIPT%", `/console/${script.path}`)
    .replace("%STYLE%", `/console/${style.path}`);
  return {
    sourceHash,
    files: [{ path: "", contentType: contentTypes[".html"]!, body: Buffer.from(page) }, ...assets],
  };
}

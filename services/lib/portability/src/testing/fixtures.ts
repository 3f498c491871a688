// Sample inputs for the unit tests, kept as files in the formats they come in.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import type { MarkdownFile } from "../markdown.ts";

const root = fileURLToPath(new URL("../../fixtures/", import.meta.url));

export function fixtureText(name: string): string {
  return readFileSync(join(root, name), "utf8");
}

/** Every file under a fixture folder, with paths relative to it (as a vault reader gives them). */
export function fixtureVault(name: string): MarkdownFile[] {
  const dir = join(root, name);
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const path = join(entry.parentPath, entry.name);
      return { path: relative(dir, path), text: readFileSync(path, "utf8") };
    });
}

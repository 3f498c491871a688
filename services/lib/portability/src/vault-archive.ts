// A Markdown vault packed as one file, the way a vault travels over HTTP or by mail: a zip
// (`zip -r vault.zip vault`, Obsidian's and most systems' "compress"), a tar, or a gzipped tar
// (`tar czf vault.tar.gz vault`). The kind is told by the bytes, not by a name or a media type.
// Unpacking is bounded before anything is inflated: the sizes the archive declares are added up
// against `maxUnpackedBytes`, and an entry that inflates past what it declared is cut there
// (fflate writes into a buffer of the declared size), so a small archive cannot unpack into a
// large one.
import { gunzipSync } from "node:zlib";
import { CairnError } from "@cairn/contracts";
import { unzipSync } from "fflate";
import { parseTar } from "nanotar";
import type { MarkdownFile } from "./markdown.ts";

export type ArchiveLimits = {
  /** Largest sum of the unpacked files' sizes. */
  maxUnpackedBytes: number;
  /** Most files (folders not counted). */
  maxFiles: number;
};

export type ArchiveKind = "zip" | "tar" | "tar.gz";

const startsWith = (bytes: Uint8Array, prefix: readonly number[], at = 0) =>
  prefix.every((b, i) => bytes[at + i] === b);

/** The kind of archive the bytes are, or null for anything else (a plain file). */
export function archiveKindOf(bytes: Uint8Array): ArchiveKind | null {
  // A local file header, or the end record of an empty zip.
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04]) || startsWith(bytes, [0x50, 0x4b, 0x05, 0x06]))
    return "zip";
  if (startsWith(bytes, [0x1f, 0x8b])) return "tar.gz";
  // POSIX and GNU tar both write "ustar" at offset 257 of each header.
  if (startsWith(bytes, [0x75, 0x73, 0x74, 0x61, 0x72], 257)) return "tar";
  return null;
}

const tooLarge = (limits: ArchiveLimits) =>
  new CairnError(
    "too_large",
    `the archive unpacks to more than ${limits.maxUnpackedBytes} bytes or holds more than ${limits.maxFiles} files`,
    {
      hint: "import the vault in parts (one archive per folder), or from the command line (`pnpm cairn import --from markdown <folder>`)",
      details: { reason: "archive_too_large", ...limits },
    },
  );

const unreadable = (kind: ArchiveKind, cause: unknown) =>
  new CairnError(
    "validation_failed",
    `the ${kind} archive could not be read: it is damaged or uses a feature not supported`,
    {
      hint: "pack the vault again (zip with deflate, or tar with gzip) and send it again",
      details: { reason: "unreadable_archive", kind },
      cause,
    },
  );

/** `a\b/./c` → `a/b/c`; null for a path that leaves the archive (`..`) or names nothing. */
function cleanPath(name: string): string | null {
  const segments = name
    .replace(/\\/g, "/")
    .split("/")
    .filter((s) => s !== "" && s !== ".");
  if (segments.length === 0 || segments.includes("..")) return null;
  return segments.join("/");
}

/** Folders systems add to archives, which are never part of a vault. */
const systemFolders = new Set(["__MACOSX"]);

/**
 * The vault's files: Markdown files with their text, every other file with an empty text (so
 * the vault's reader reports it as skipped). One folder holding everything (`vault/…`, as
 * `zip -r vault.zip vault` makes) is taken off the paths: they are relative to the vault.
 */
export function readVaultArchive(bytes: Uint8Array, limits: ArchiveLimits): MarkdownFile[] {
  const kind = archiveKindOf(bytes);
  if (kind === null) {
    throw new CairnError("validation_failed", "a Markdown vault comes as a zip, a tar or a gzipped tar", {
      hint: "pack the vault's folder (`zip -r vault.zip vault` or `tar czf vault.tar.gz vault`) and send that, or send one .md file with Content-Type: text/markdown",
      details: { reason: "not_an_archive" },
    });
  }
  const entries = kind === "zip" ? unzipEntries(bytes, limits) : tarEntries(bytes, kind, limits);
  const decoder = new TextDecoder("utf-8");
  const files: MarkdownFile[] = [];
  for (const entry of entries) {
    const path = cleanPath(entry.name);
    if (path === null || systemFolders.has(path.split("/")[0] ?? "")) continue;
    const markdown = /\.md$/i.test(path);
    files.push({ path, text: markdown ? decoder.decode(entry.data) : "" });
  }
  const tops = new Set(files.map((f) => (f.path.includes("/") ? f.path.split("/")[0] : null)));
  const [top] = tops;
  if (tops.size === 1 && typeof top === "string") {
    return files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
  }
  return files;
}

type Entry = { name: string; data: Uint8Array };

function unzipEntries(bytes: Uint8Array, limits: ArchiveLimits): Entry[] {
  let total = 0;
  let count = 0;
  let unpacked: Record<string, Uint8Array>;
  try {
    unpacked = unzipSync(bytes, {
      filter: (file) => {
        if (file.name.endsWith("/")) return false;
        count += 1;
        total += file.originalSize;
        if (count > limits.maxFiles || total > limits.maxUnpackedBytes) throw tooLarge(limits);
        return true;
      },
    });
  } catch (error) {
    if (error instanceof CairnError) throw error;
    throw unreadable("zip", error);
  }
  return Object.entries(unpacked).map(([name, data]) => ({ name, data }));
}

function tarEntries(bytes: Uint8Array, kind: "tar" | "tar.gz", limits: ArchiveLimits): Entry[] {
  let tar: Uint8Array = bytes;
  if (kind === "tar.gz") {
    try {
      // Tar headers add 512 bytes a file: room for them over the files' own sizes.
      tar = gunzipSync(bytes, { maxOutputLength: limits.maxUnpackedBytes + 1024 * (limits.maxFiles + 2) });
    } catch (error) {
      if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limits);
      throw unreadable(kind, error);
    }
    if (archiveKindOf(tar) !== "tar") throw unreadable(kind, new Error("the gzip stream holds no tar"));
  }
  let total = 0;
  let count = 0;
  try {
    // A copy with its own buffer: nanotar reads `data.buffer` from its start, and a Node Buffer
    // is often a view into a larger shared one.
    return parseTar(new Uint8Array(tar), {
      filter: (file) => {
        if (file.type !== "file" && file.type !== "contiguousFile") return false;
        count += 1;
        total += file.size;
        if (count > limits.maxFiles || total > limits.maxUnpackedBytes) throw tooLarge(limits);
        return true;
      },
    }).map((item) => ({ name: item.name, data: item.data ?? new Uint8Array() }));
  } catch (error) {
    if (error instanceof CairnError) throw error;
    throw unreadable(kind, error);
  }
}

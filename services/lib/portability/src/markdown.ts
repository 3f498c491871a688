// A Markdown folder: one file per memory with YAML front matter, readable as an Obsidian vault;
// and the reverse, a KeepM or Obsidian vault read as memories.

import type { CairnExportRecord } from "@cairn/contracts";
import {
  type Kind,
  KindSchema,
  normaliseSlot,
  ScopeSchema,
  type Status,
  StatusSchema,
  type Tier,
  TierSchema,
} from "@cairn/contracts";
import { cleanTimestamp, type Report } from "./clean-text.ts";
import { frontMatterText, splitFrontMatter } from "./front-matter.ts";
import {
  type DraftItem,
  finishImportPlan,
  holdsSlot,
  type ImportOptions,
  type ImportPlan,
  type ImportProblem,
  initialStatusOf,
} from "./import-plan.ts";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";
import { shortHash } from "./slot-name.ts";
import { mapWikiLinks, slotsIngestLinks, wikiLabel } from "./wiki-links.ts";

export type MarkdownFile = { path: string; text: string };

// ── File names ──

// Characters Windows, macOS or Obsidian do not accept in a file name, or that break a WikiLink.
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are refused in file names
const unsafeInName = /[\\:*?"<>|#^[\]\u0000-\u001f\u007f]/g;
const reservedOnWindows = /^(?:con|prn|aux|nul|com\d|lpt\d)(?:\..*)?$/i;
// File names are at most 255 bytes on common file systems; room is left for a suffix and `.md`.
const maxSegmentBytes = 180;

function cutToBytes(text: string, max: number): string {
  const encoder = new TextEncoder();
  if (encoder.encode(text).length <= max) return text;
  let out = "";
  let bytes = 0;
  for (const ch of text) {
    const n = encoder.encode(ch).length;
    if (bytes + n > max) break;
    out += ch;
    bytes += n;
  }
  return out;
}

function safeSegment(segment: string, isFolder: boolean): string {
  let s = segment.normalize("NFC").replace(unsafeInName, "-").replace(/-{2,}/g, "-");
  s = cutToBytes(s, maxSegmentBytes)
    .replace(/^[.\s-]+/, "")
    .replace(/[.\s]+$/, "");
  if (s.length === 0) s = "_";
  if (reservedOnWindows.test(s)) s = `${s}_`;
  // A folder named like a note file (`a.md/`) would clash with the note `a.md`.
  if (isFolder && /\.md$/i.test(s)) s = `${s}_`;
  return s;
}

/** The file path (without `.md`) a slot is written to: `/` in a slot makes folders. */
export function fileStemForSlot(slot: string): string {
  const segments = slot.split("/");
  return segments.map((s, i) => safeSegment(s, i < segments.length - 1)).join("/");
}

const tierRank: Record<Tier, number> = { memory: 0, handoff: 1, proposal: 2 };

function isCurrent(record: CairnExportRecord): boolean {
  return record.status === initialStatusOf[record.tier];
}

/** Records in the order they choose their file names: the current one of a slot first. */
function namingOrder(records: readonly CairnExportRecord[]): CairnExportRecord[] {
  return [...records].sort(
    (a, b) =>
      Number(isCurrent(b)) - Number(isCurrent(a)) ||
      tierRank[a.tier] - tierRank[b.tier] ||
      a.createdAt.localeCompare(b.createdAt) ||
      a.id.localeCompare(b.id),
  );
}

/**
 * The file path of each record, by id. A slot's file is `<slot>.md`, made safe for every file
 * system. When several records would get the same file (a memory and the one it superseded, one
 * slot in two scopes, or two slots that only differ in characters a file name cannot hold), the
 * current memory keeps the plain name and the others get `-<8 hex digits of a hash of their
 * id>` (the whole id if even that is taken), so a file's name does not change from one export
 * to the next. Names are compared as case-insensitive file systems do.
 */
export function markdownFileNames(records: readonly CairnExportRecord[]): Map<string, string> {
  const taken = new Set<string>();
  const names = new Map<string, string>();
  const claim = (stem: string) => {
    const key = stem.normalize("NFC").toLowerCase();
    if (taken.has(key)) return false;
    taken.add(key);
    return true;
  };
  for (const record of namingOrder(records)) {
    if (record.purged) continue;
    const stem = fileStemForSlot(record.slot);
    const candidates = [stem, `${stem}-${shortHash(record.id)}`, `${stem}-${record.id}`];
    let chosen = candidates.find(claim);
    for (let n = 2; chosen === undefined; n++)
      if (claim(`${stem}-${record.id}-${n}`)) chosen = `${stem}-${record.id}-${n}`;
    names.set(record.id, `${chosen}.md`);
  }
  return names;
}

// ── Export ──

/** Marks the list of links an export adds, so that reading the file back takes it off the content. */
export const linksMarker = "<!-- cairn:links -->";
const linksBlock = /\n*<!-- cairn:links -->\n## Links\n\n((?:- \[\[[^\]\n]*\]\]\n?)*)\s*$/;

function frontMatterOf(record: CairnExportRecord): Record<string, unknown> {
  return {
    id: record.id,
    slot: record.slot,
    title: record.title,
    tier: record.tier,
    status: record.status,
    kind: record.kind,
    scope: record.scope,
    tags: record.tags,
    aliases: record.aliases,
    keys: record.keys,
    project: record.project,
    source: record.source,
    created: record.createdAt,
    updated: record.updatedAt,
    agent: record.agent,
    validFrom: record.validFrom,
    invalidAt: record.invalidAt,
    ...(record.supersedes ? { supersedes: record.supersedes } : {}),
    ...(record.promotedFrom ? { promotedFrom: record.promotedFrom } : {}),
  };
}

/**
 * One Markdown file per record (a purged memory has no text and gets none): front matter, then
 * the content exactly as stored. Links the content already writes as `[[slot]]` stay as they
 * are; any other link goes in a "Links" list at the end, pointing at the file of the memory
 * that holds the slot. Files are sorted by path.
 */
export function exportMarkdownVault(records: readonly CairnExportRecord[]): MarkdownFile[] {
  const names = markdownFileNames(records);
  const fileOfSlot = new Map<string, string>();
  for (const record of namingOrder(records)) {
    const name = names.get(record.id);
    if (name && !fileOfSlot.has(record.slot)) fileOfSlot.set(record.slot, name.slice(0, -3));
  }
  const files: MarkdownFile[] = [];
  for (const record of records) {
    const path = names.get(record.id);
    if (path === undefined) continue;
    const present = new Set(slotsIngestLinks(record.content));
    const missing = record.links.filter((slot) => !present.has(normaliseSlot(slot)));
    let text = `${frontMatterText(frontMatterOf(record))}${record.content}\n`;
    if (missing.length > 0) {
      const items = missing.map((slot) => {
        const target = fileOfSlot.get(slot) ?? slot;
        return target === slot ? `- [[${slot}]]` : `- [[${target}|${wikiLabel(slot)}]]`;
      });
      text += `\n${linksMarker}\n## Links\n\n${items.join("\n")}\n`;
    }
    files.push({ path, text });
  }
  return files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

// ── Import ──

type Note = {
  path: string;
  stem: string;
  fields: Record<string, unknown>;
  body: string;
  slot: string;
  report: Report;
};

function text(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return undefined;
}

/** A list field as Obsidian allows it: a YAML list, or one string separated by commas (or spaces, for tags). */
function list(value: unknown, separator: RegExp): string[] {
  if (Array.isArray(value)) return value.map(text).filter((v): v is string => v !== undefined);
  const one = text(value);
  return one === undefined ? [] : one.split(separator);
}

function field(fields: Record<string, unknown>, ...names: string[]): unknown {
  for (const name of names) if (Object.hasOwn(fields, name)) return fields[name];
  return undefined;
}

function hasField(fields: Record<string, unknown>, ...names: string[]): boolean {
  return names.some((name) => Object.hasOwn(fields, name));
}

function oneOf<T extends string>(
  schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } },
  value: unknown,
  what: string,
  fallback: T,
  report: Report,
): T {
  if (value === undefined || value === null || value === "") return fallback;
  const parsed = schema.safeParse(typeof value === "string" ? value.trim().toLowerCase() : value);
  if (parsed.success) return parsed.data;
  report(`${what} ${JSON.stringify(value)} is not known; ${fallback} used`);
  return fallback;
}

function firstHeading(body: string): string | undefined {
  let inFence = false;
  for (const line of body.split("\n")) {
    if (/^ {0,3}(```|~~~)/.test(line)) inFence = !inFence;
    else if (!inFence) {
      const h = /^ {0,3}# +(.+?)(?:\s+#+)?\s*$/.exec(line);
      if (h) return h[1];
    }
  }
  return undefined;
}

function normalisePath(path: string): string {
  return path.replace(/\\/g, "/").replace(/^(?:\.\/|\/)+/, "");
}

/** Finds the note a WikiLink target names, the way Obsidian does, by slot, path or file name. */
function linkResolver(notes: readonly Note[]): (target: string) => string | undefined {
  const bySlot = new Map<string, string>();
  const byPath = new Map<string, string>();
  const byName = new Map<string, string>();
  const key = (s: string) => s.normalize("NFC").toLowerCase();
  // Shortest path first, so that a bare name picks the note nearest the top, as Obsidian does.
  const ordered = [...notes].sort(
    (a, b) => a.stem.split("/").length - b.stem.split("/").length || (a.stem < b.stem ? -1 : 1),
  );
  for (const note of ordered) {
    if (!bySlot.has(note.slot)) bySlot.set(note.slot, note.slot);
    byPath.set(key(note.stem), note.slot);
    const name = key(note.stem.split("/").pop()!);
    if (!byName.has(name)) byName.set(name, note.slot);
  }
  return (target) => {
    const t = target.replace(/^\/+/, "");
    return (
      bySlot.get(normaliseSlot(t)) ?? byPath.get(key(t)) ?? (t.includes("/") ? undefined : byName.get(key(t)))
    );
  };
}

/**
 * Reads a vault (KeepM, Obsidian, or an export of this package) as memories. Each `.md` file is
 * one memory: front matter (optional) gives its fields, the rest of the file its content; the
 * title is front matter `title`, else the first `# ` heading, else the file name; the slot is
 * front matter `slot`, else the path without `.md` (folders kept as `/`). WikiLinks to notes of
 * the vault become links to their slots; where ingest would read a link's text as another slot,
 * the link is written `[[slot|text]]` so that it keeps pointing at that note. Hidden folders
 * (`.obsidian`, `.trash`) are passed over; other files that are not Markdown are reported.
 */
export function parseMarkdownVault(files: readonly MarkdownFile[], options: ImportOptions = {}): ImportPlan {
  const problems: ImportProblem[] = [];
  const claims = createSlotClaims();
  const notes: Note[] = [];
  const seenPaths = new Set<string>();
  const sorted = files
    .map((f) => ({ path: normalisePath(f.path), text: f.text }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const drafts: { note: Note; draft: Omit<DraftItem, "links"> }[] = [];

  for (const file of sorted) {
    const report: Report = (message) => problems.push({ where: file.path, message });
    if (file.path.split("/").some((segment) => segment.startsWith("."))) continue;
    if (!/\.md$/i.test(file.path)) {
      report("not a Markdown file; skipped");
      continue;
    }
    if (seenPaths.has(file.path)) {
      report("the same path is given twice; the second is skipped");
      continue;
    }
    seenPaths.add(file.path);
    const stem = file.path.slice(0, -3);
    const { data, body, error } = splitFrontMatter(file.text.replace(/^\uFEFF/, "").replace(/\r\n?/g, "\n"));
    if (error) report(`${error}; read as content only`);
    const fields = data ?? {};

    const tier = oneOf(TierSchema, fields.tier, "tier", "memory" as Tier, report);
    const statusValue = text(fields.status);
    const status: Status | undefined = statusValue
      ? oneOf(StatusSchema, statusValue, "status", initialStatusOf[tier], report)
      : undefined;
    const scope = oneOf(ScopeSchema, fields.scope, "scope", options.scope ?? "team", report);
    // `kind`, or a `type` that happens to name a kind (KeepM and many vaults write `type`).
    const typeAsKind = KindSchema.safeParse(text(fields.type)?.trim().toLowerCase());
    const kind: Kind = hasField(fields, "kind")
      ? oneOf(KindSchema, fields.kind, "kind", "note" as Kind, report)
      : typeAsKind.success
        ? typeAsKind.data
        : "note";
    const project = hasField(fields, "project") ? (text(fields.project) ?? null) : (options.project ?? null);
    const agent = text(field(fields, "agent", "author"));
    const ownSlot = text(fields.slot);
    const proposed = ownSlot && normaliseSlot(ownSlot) ? ownSlot : stem;
    const slot = holdsSlot(tier, status)
      ? claims.claim(proposed, slotDomain(tier, scope, project), file.path, report)
      : claims.peek(proposed);

    const note: Note = { path: file.path, stem, fields, body, slot, report };
    notes.push(note);
    const validFrom = hasField(fields, "validFrom", "valid_from")
      ? cleanTimestamp(field(fields, "validFrom", "valid_from"), "validFrom", report)
      : cleanTimestamp(field(fields, "created", "created_at", "createdAt", "date"), "created", report);
    const invalidAt = cleanTimestamp(field(fields, "invalidAt", "invalid_at"), "invalidAt", report);
    const originalId = text(fields.id);
    const supersedes = text(fields.supersedes);
    const promotedFrom = text(fields.promotedFrom);
    drafts.push({
      note,
      draft: {
        sourceRef: file.path,
        tier,
        memory: {
          slot,
          kind,
          content: "",
          title: text(fields.title) ?? firstHeading(body) ?? stem.split("/").pop()!,
          tags: list(field(fields, "tags", "tag"), /[,\s]+/).map((t) => t.replace(/^#/, "")),
          aliases: list(field(fields, "aliases", "alias"), /,/),
          keys: list(fields.keys, /,/),
          scope,
          project,
          source: hasField(fields, "source") ? (text(fields.source) ?? null) : file.path,
          validFrom,
        },
        ...(status ? { status } : {}),
        ...(invalidAt ? { invalidAt } : {}),
        ...(originalId ? { originalId } : {}),
        ...(agent ? { agent } : {}),
        ...(supersedes
          ? { successorOf: { originalId: supersedes, via: "supersede" as const } }
          : promotedFrom
            ? { successorOf: { originalId: promotedFrom, via: "promote" as const } }
            : {}),
      },
    });
  }

  const resolve = linkResolver(notes);
  const items: DraftItem[] = drafts.map(({ note, draft }) => {
    const links: string[] = [];
    const listed: string[] = [];
    let body = note.body;
    const block = linksBlock.exec(body);
    if (block) {
      body = body.slice(0, block.index);
      for (const line of (block[1] ?? "").split("\n")) {
        const target = /^- \[\[([^\]|]*)/.exec(line)?.[1];
        if (target) listed.push(resolve(target) ?? normaliseSlot(target));
      }
    }
    let rewritten = 0;
    const content = mapWikiLinks(body, (link) => {
      if (link.note.length === 0) return undefined;
      const resolved = resolve(link.note);
      // An embedded picture or PDF is not a link to a memory.
      if (resolved === undefined && link.embed && /\.[a-z0-9]{1,5}$/i.test(link.note)) return undefined;
      const slot = resolved ?? normaliseSlot(link.note);
      if (slot.length === 0) return undefined;
      links.push(slot);
      if (normaliseSlot(link.target) === slot) return undefined;
      rewritten++;
      const shown = wikiLabel(link.label ?? link.target).slice(0, 200);
      return `${link.embed ? "!" : ""}[[${slot}${shown ? `|${shown}` : ""}]]`;
    })
      .replace(/^(?:[ \t]*\n)+/, "")
      .trimEnd();
    if (rewritten > 0) {
      note.report(
        `${rewritten} WikiLink${rewritten === 1 ? "" : "s"} written as [[slot|text]] so that Cairn links to the same note${rewritten === 1 ? "" : "s"}`,
      );
    }
    return { ...draft, memory: { ...draft.memory, content }, links: [...links, ...listed] };
  });
  return finishImportPlan(items, problems);
}

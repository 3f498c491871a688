// WikiLinks as Obsidian writes them: `[[target]]`, `[[target|label]]`, `[[target#heading]]`,
// `[[target^block]]`, and embeds `![[target]]`. Links inside fenced code blocks and inline
// code are text, not links.
import { normaliseSlot } from "@cairn/contracts";

export type WikiLink = {
  /** The whole match, `!` of an embed included. */
  raw: string;
  embed: boolean;
  /** What is between `[[` and `|` (or `]]`), heading and block reference included. */
  target: string;
  /** The note the link points to: `target` without heading, block reference or `.md`. */
  note: string;
  label: string | undefined;
};

const wikiLink = /(!?)\[\[([^[\]\n]+?)\]\]/g;
// What ingest reads as a link (see its `extractLinks`): the text before `|` is the slot.
const ingestLink = /\[\[([^[\]\n|]{1,200})(?:\|[^[\]\n]{0,200})?\]\]/gu;
const fence = /^ {0,3}(`{3,}|~{3,})/;
const inlineCode = /(`+)[^`\n]*?\1/g;

function parse(raw: string, embed: string, inner: string): WikiLink {
  const bar = inner.indexOf("|");
  const target = (bar < 0 ? inner : inner.slice(0, bar)).trim();
  const label = bar < 0 ? undefined : inner.slice(bar + 1);
  const note = target.split(/[#^]/)[0]!.trim().replace(/\.md$/i, "");
  return { raw, embed: embed === "!", target, note, label };
}

/**
 * Applies `replace` to each WikiLink outside code and returns the text with the replacements.
 * Returning `undefined` keeps a link as written.
 */
export function mapWikiLinks(text: string, replace: (link: WikiLink) => string | undefined): string {
  const lines = text.split("\n");
  let open: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = fence.exec(line)?.[1];
    if (open !== null) {
      if (marker && marker[0] === open[0] && marker.length >= open.length) open = null;
      continue;
    }
    if (marker) {
      open = marker;
      continue;
    }
    // Split around inline code so that only the text between code spans is touched.
    let out = "";
    let last = 0;
    for (const code of line.matchAll(inlineCode)) {
      out += replaceIn(line.slice(last, code.index), replace) + code[0];
      last = code.index + code[0].length;
    }
    lines[i] = out + replaceIn(line.slice(last), replace);
  }
  return lines.join("\n");
}

function replaceIn(text: string, replace: (link: WikiLink) => string | undefined): string {
  return text.replace(
    wikiLink,
    (raw, embed: string, inner: string) => replace(parse(raw, embed, inner)) ?? raw,
  );
}

/** The WikiLinks of a text outside code, in order. */
export function wikiLinksOf(text: string): WikiLink[] {
  const out: WikiLink[] = [];
  mapWikiLinks(text, (link) => {
    out.push(link);
    return undefined;
  });
  return out;
}

/** The slots ingest will derive from a content's `[[…]]`, in order, once each. */
export function slotsIngestLinks(content: string): string[] {
  const out = new Set<string>();
  for (const match of content.matchAll(ingestLink)) {
    const slot = normaliseSlot(match[1] ?? "");
    if (slot.length > 0) out.add(slot);
  }
  return [...out];
}

/** Text made safe as a WikiLink label: no brackets, bar or line break, which would end the link. */
export function wikiLabel(text: string): string {
  return text
    .replace(/[[\]|\n\r]+/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

import { createHash } from "node:crypto";

/** Two contents are the same memory when they differ only in Unicode form, case or spacing. */
export function normaliseContent(content: string): string {
  return content.normalize("NFKC").toLowerCase().replace(/\s+/gu, " ").trim();
}

export function contentHash(content: string): string {
  return `sha256:${createHash("sha256").update(normaliseContent(content)).digest("hex")}`;
}

/** Trimmed, NFKC, one space between words; empty values and case-insensitive repeats dropped. */
export function normaliseLabels(values: readonly string[], options: { lowerCase?: boolean } = {}): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  for (const value of values) {
    let v = value.normalize("NFKC").replace(/\s+/gu, " ").trim();
    if (options.lowerCase) v = v.toLowerCase();
    const key = v.toLowerCase();
    if (v.length === 0 || seen.has(key)) continue;
    seen.add(key);
    out.push(v);
  }
  return out;
}

/** A title when the writer gave none: the content's first line, cut at a word near 120 chars. */
export function titleFromContent(content: string, max = 120): string {
  const firstLine =
    content
      .split("\n")
      .map((l) => l.replace(/^[#>*\-\s]+/u, "").trim())
      .find((l) => l.length > 0) ?? "";
  if (firstLine.length <= max) return firstLine;
  const cut = firstLine.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

import { normaliseSlot } from "@cairn/contracts";

const wikiLink = /\[\[([^[\]\n|]{1,200})(?:\|[^[\]\n]{0,200})?\]\]/gu;

/** The slots a content refers to with `[[slot]]` (or `[[slot|label]]`), normalised, in order, once each. */
export function extractLinks(content: string): string[] {
  const out = new Set<string>();
  for (const match of content.matchAll(wikiLink)) {
    const slot = normaliseSlot(match[1] ?? "");
    if (slot.length > 0) out.add(slot);
  }
  return [...out];
}

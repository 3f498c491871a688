// Slot names for imported memories. Ingest canonicalises every slot it is given; the plan
// computes the same canonical form (contracts' `normaliseSlot`) up front so that it can see,
// before anything is sent, two records that would claim one slot, and give the later one a
// stable suffix instead of letting ingest refuse it as `slot_taken`.
import { createHash } from "node:crypto";
import { limits, normaliseSlot } from "@cairn/contracts";

/** At most `max` UTF-16 units, never splitting a surrogate pair. */
export function cutToLength(text: string, max: number): string {
  if (text.length <= max) return text;
  let cut = text.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return cut;
}

/** A canonical slot cut to `max` characters without leaving a separator at its end. */
export function cutSlot(slot: string, max: number = limits.slotMaxChars): string {
  return cutToLength(slot, max).replace(/[-.:/]+$/g, "");
}

/** A short, stable hex digest of a source identifier: the same id always gives the same suffix. */
export function shortHash(seed: string, length = 8): string {
  return createHash("sha256").update(seed).digest("hex").slice(0, length);
}

/**
 * A readable slot for a record that has none (mem0, keymem): the given prefix, then the first
 * words of the text, at most `maxWords` words and `maxChars` characters (a script without
 * spaces, such as Chinese, is cut by characters), then a short stable suffix from the record's id.
 */
export function slotFromText(
  prefix: string | null,
  text: string,
  seed: string,
  options: { maxWords?: number; maxChars?: number } = {},
): string {
  const maxWords = options.maxWords ?? 6;
  const maxChars = options.maxChars ?? 48;
  const words = normaliseSlot(text.replace(/[/:.]/g, " "))
    .split("-")
    .filter((w) => w.length > 0);
  let head = "";
  for (const word of words.slice(0, maxWords)) {
    const next = head ? `${head}-${word}` : word;
    if ([...next].length > maxChars) {
      if (!head) head = [...word].slice(0, maxChars).join("");
      break;
    }
    head = next;
  }
  const start = prefix ? normaliseSlot(prefix.replace(/[/:.]/g, " ")) : "";
  const suffix = shortHash(seed);
  const body = [start, head].filter((p) => p.length > 0).join("-");
  return body ? `${cutSlot(body, limits.slotMaxChars - suffix.length - 1)}-${suffix}` : suffix;
}

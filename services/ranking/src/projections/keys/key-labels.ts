// Which keys a memory is filed under, and of which type: the agent's keys plus the
// entities ingest extracted. Pure.
import type { Entity, KeyType } from "@cairn/contracts";
import { normalizeLabel } from "../../text/analyze-text.ts";

export type KeyLabel = { label: string; norm: string; type: KeyType };

const entityKeyType: Record<Entity["type"], KeyType> = {
  person: "name",
  place: "proper_noun",
  organisation: "proper_noun",
  product: "proper_noun",
  ticker: "name",
  code: "name",
  url: "name",
  term: "concept",
};

/**
 * An agent's key is a `proper_noun` when every word is capitalised ("Python", "New York"),
 * a `name` when it looks like an identifier ("user_id", "v2.3", "ACME-42"), else a `concept`.
 */
export function inferKeyType(label: string): KeyType {
  const trimmed = label.trim();
  if (/[_./:#@]|\p{N}/u.test(trimmed) && !/\s/.test(trimmed)) return "name";
  const ws = trimmed.split(/\s+/);
  if (ws.length > 0 && ws.every((w) => /^\p{Lu}/u.test(w))) return "proper_noun";
  return "concept";
}

export function keyLabelsOf(keys: string[], entities: Entity[]): KeyLabel[] {
  const out = new Map<string, KeyLabel>();
  const add = (label: string, type: KeyType) => {
    const norm = normalizeLabel(label);
    if (norm && !out.has(norm)) out.set(norm, { label: label.trim(), norm, type });
  };
  for (const key of keys) add(key, inferKeyType(key));
  for (const entity of entities) add(entity.text, entityKeyType[entity.type]);
  return [...out.values()];
}

/** Names and proper nouns match only exactly; concepts also by similarity. */
export function matchesBySimilarity(type: KeyType): boolean {
  return type === "concept";
}

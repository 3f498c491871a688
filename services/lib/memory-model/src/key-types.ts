// Which kind of key a label is: the one rule ingest uses when it links a memory to the keys an
// agent gave, and ranking uses when it files a memory under its keys and entities.
import type { Entity, KeyType } from "@cairn/contracts";

/** The key type of an extracted entity: names and codes match exactly, terms by similarity. */
export const entityKeyType: Record<Entity["type"], KeyType> = {
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
  const words = trimmed.split(/\s+/);
  if (words.length > 0 && words.every((w) => /^\p{Lu}/u.test(w))) return "proper_noun";
  return "concept";
}

/** The type of a key label on a memory: an entity's type when the label is one of its entities. */
export function keyTypeOf(label: string, entities: readonly Entity[]): KeyType {
  const match = entities.find((e) => e.text.toLowerCase() === label.trim().toLowerCase());
  return match ? entityKeyType[match.type] : inferKeyType(label);
}

/** Names and proper nouns match only exactly; concepts also by similarity. */
export function matchesBySimilarity(type: KeyType): boolean {
  return type === "concept";
}

// Which keys a memory is filed under, and of which type: the agent's keys plus the entities
// ingest extracted (the key type rule is the memory model's). Pure.
import type { Entity, KeyType } from "@cairn/contracts";
import { entityKeyType, inferKeyType } from "@cairn/memory-model";
import { normalizeLabel } from "../../text/analyze-text.ts";

export type KeyLabel = { label: string; norm: string; type: KeyType };

export function keyLabelsOf(keys: readonly string[], entities: readonly Entity[]): KeyLabel[] {
  const out = new Map<string, KeyLabel>();
  const add = (label: string, type: KeyType) => {
    const norm = normalizeLabel(label);
    if (norm && !out.has(norm)) out.set(norm, { label: label.trim(), norm, type });
  };
  for (const key of keys) add(key, inferKeyType(key));
  for (const entity of entities) add(entity.text, entityKeyType[entity.type]);
  return [...out.values()];
}

// `projectToRediSearch`: the lexical projection. Folds events into current documents and
// synonym tables and writes them, with the checkpoint, in one compare-and-set script. Sealed
// memory text is opened with the memories' content keys first (a purged memory's stays empty).
import type { StoredEvent } from "@cairn/contracts";
import { createMemoryKeyStore } from "@cairn/event-store";
import type pg from "pg";
import { recordDeadLetters } from "../dead-letters.ts";
import { foldEvents, memoryIdsOf, openSealedBatch } from "../fold-events.ts";
import type { ApplyResult, ProjectionTarget, ProjectionWriter } from "../projection-target.ts";
import type { LexicalStore, LexicalWrite } from "./lexical-store.ts";

export function createLexicalProjection(options: { store: LexicalStore; pool: pg.Pool }): ProjectionTarget {
  const { store, pool } = options;
  const keyring = createMemoryKeyStore(pool);
  return {
    name: "lexical",
    liveGeneration: () => store.ensureActiveGeneration(),
    activeGeneration: () => store.activeGeneration(),
    checkpoint: (g) => store.checkpoint(g),
    async apply(
      g,
      writer: ProjectionWriter,
      expected,
      events: readonly StoredEvent[],
      next,
    ): Promise<ApplyResult> {
      const current = await store.loadDocuments(g, memoryIdsOf(events));
      const opened = await openSealedBatch(events, keyring);
      const fold = foldEvents(opened.events, current, opened.unreadable);
      const writes: LexicalWrite[] = [
        ...[...fold.documents.values()].map((document) => ({ kind: "document" as const, document })),
        ...[...fold.synonyms].map(([tenant, groups]) => ({ kind: "synonyms" as const, tenant, groups })),
      ];
      const outcome = await store.commit(g, writer, expected, next, writes);
      // Only a fold that was committed says what could not apply: one that lost the race for
      // the checkpoint read documents that had moved on (its "poison" would be bogus).
      // Postgres holds the record, Redis the read model, so this comes right after the commit.
      if (outcome === "ok") await recordDeadLetters(pool, "lexical", g, fold.deadLetters);
      return { outcome, deadLetters: fold.deadLetters };
    },
    recordDeadLetters: (g, letters) => recordDeadLetters(pool, "lexical", g, letters),
    async resumableGenerations() {
      return (await store.buildingGenerations()).map((b) => ({
        generation: b.generation,
        checkpoint: b.checkpoint,
      }));
    },
    leftoverGenerations: () => store.leftoverGenerations(),
    createGeneration: (token) => store.createGeneration(token),
    claimGeneration: (g, token) => store.claimGeneration(g, token),
    prepareToServe: async () => {},
    pause: (token, ttlMs) => store.pause(token, ttlMs),
    resume: (token) => store.resume(token),
    switchActive: (from, to, checkpoint, token) => store.switchActive(from, to, checkpoint, token),
    dropGeneration: (g) => store.dropGeneration(g),
    async status() {
      const active = await store.activeGeneration();
      const building = (await store.buildingGenerations()).at(-1);
      return {
        name: "lexical",
        generation: active ?? 0,
        position: active === null ? 0 : await store.checkpoint(active),
        model: null,
        dimensions: null,
        rebuilding: building ? { generation: building.generation, position: building.checkpoint } : null,
      };
    },
  };
}

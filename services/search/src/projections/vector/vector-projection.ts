// `projectToPgvector`: the vector projection. Folds events into current documents, embeds
// the ones whose text changed (title, aliases and content), and writes rows, dead letters and
// the checkpoint in one transaction. Sealed memory text is opened with the memories' content
// keys first; a purged memory keeps no text and is embedded from its slot alone.
import type { ContentKeyring, MemoryDocument, StoredEvent } from "@cairn/contracts";
import { CairnError } from "@cairn/contracts";
import type { Embedder } from "../../embedders/embedder.ts";
import { textHash } from "../../embedders/embedding-cache.ts";
import { foldEvents, memoryIdsOf, openSealedBatch } from "../fold-events.ts";
import type { ApplyResult, ProjectionTarget, ProjectionWriter } from "../projection-target.ts";
import type { VectorGeneration, VectorStore, VectorUpsert } from "./vector-store.ts";

/** The text a memory is embedded from. */
export function embeddingText(doc: MemoryDocument): string {
  if (doc.purgedAt) return doc.slot;
  return [doc.title, doc.aliases.join(", "), doc.content].filter((s) => s.trim() !== "").join("\n");
}

/** The serving table was built with another model than the one configured. */
export class EmbeddingModelMismatchError extends CairnError {
  constructor(active: string, configured: string) {
    super(
      "unavailable",
      `the vector read model was built with ${active}, but the configured embedder is ${configured}`,
      {
        hint: "run `pnpm cairn rebuild --projection vector` with the new embedder settings, or restore the old ones",
        details: { active, configured },
      },
    );
    this.name = "EmbeddingModelMismatchError";
  }
}

export type VectorProjection = ProjectionTarget & {
  readonly embedder: Embedder;
  /** The active generation, checked against the configured model. */
  servingGeneration(): Promise<VectorGeneration>;
};

export function createVectorProjection(options: {
  store: VectorStore;
  embedder: Embedder;
  /** Opens sealed memory text (the content key store). */
  keyring: ContentKeyring;
}): VectorProjection {
  const { store, embedder, keyring } = options;
  const generations = new Map<number, VectorGeneration>();

  async function generationInfo(g: number): Promise<VectorGeneration> {
    const known = generations.get(g);
    if (known) return known;
    const info = await store.generation(g);
    if (!info) throw new CairnError("unavailable", `vector generation ${g} does not exist`);
    generations.set(g, info);
    return info;
  }

  async function servingGeneration(): Promise<VectorGeneration> {
    let active = await store.activeGeneration();
    if (!active) active = await store.ensureActiveGeneration(embedder.model, await embedder.dimensions());
    if (active.model !== embedder.model) throw new EmbeddingModelMismatchError(active.model, embedder.model);
    generations.set(active.generation, active);
    return active;
  }

  return {
    name: "vector",
    embedder,
    servingGeneration,
    liveGeneration: async () => (await servingGeneration()).generation,
    activeGeneration: async () => (await store.activeGeneration())?.generation ?? null,
    checkpoint: (g) => store.checkpoint(g),
    async apply(
      g,
      writer: ProjectionWriter,
      expected,
      events: readonly StoredEvent[],
      next,
    ): Promise<ApplyResult> {
      const gen = await generationInfo(g);
      if (gen.model !== embedder.model) throw new EmbeddingModelMismatchError(gen.model, embedder.model);
      const rows = await store.loadRows(gen, memoryIdsOf(events));
      const current = new Map([...rows].map(([id, row]) => [id, row.document]));
      const opened = await openSealedBatch(events, keyring);
      const fold = foldEvents(opened.events, current, opened.unreadable);
      const upserts: VectorUpsert[] = [];
      const toEmbed: { index: number; text: string; owner: string | undefined }[] = [];
      const purged: string[] = [];
      for (const document of fold.documents.values()) {
        const text = embeddingText(document);
        const hash = textHash(text);
        if (document.purgedAt && !rows.get(document.id)?.document.purgedAt) purged.push(document.id);
        if (rows.get(document.id)?.textHash !== hash) {
          // A purged memory's embedding (of its slot) is not cached under its id: the cache
          // forgets that memory below.
          toEmbed.push({ index: upserts.length, text, owner: document.purgedAt ? undefined : document.id });
        }
        upserts.push({ document, textHash: hash, embedding: null });
      }
      if (toEmbed.length > 0) {
        const vectors = await embedder.embed(
          toEmbed.map((t) => t.text),
          { owners: toEmbed.map((t) => t.owner) },
        );
        toEmbed.forEach((t, i) => {
          const vector = vectors[i] as number[];
          if (vector.length !== gen.dimensions) {
            throw new CairnError(
              "internal",
              `${embedder.model} returned ${vector.length} dimensions; generation ${g} holds ${gen.dimensions}`,
            );
          }
          (upserts[t.index] as VectorUpsert).embedding = vector;
        });
      }
      const outcome = await store.commit(gen, writer, expected, next, upserts, fold.deadLetters);
      if (outcome === "not_owner") generations.delete(g);
      // Embeddings derived from a purged memory's text must not outlive it in the cache.
      if (outcome === "ok" && purged.length > 0) await embedder.forget?.(purged);
      return { outcome, deadLetters: fold.deadLetters };
    },
    recordDeadLetters: (g, letters) => store.recordDeadLetters(g, letters),
    async resumableGenerations() {
      return (await store.buildingGenerations())
        .filter((b) => b.model === embedder.model)
        .map((b) => ({ generation: b.generation, checkpoint: b.checkpoint }));
    },
    async leftoverGenerations() {
      return (await store.retiredGenerations()).map((g) => g.generation);
    },
    async createGeneration(token) {
      return (await store.createGeneration(embedder.model, await embedder.dimensions(), token)).generation;
    },
    claimGeneration: (g, token) => store.claimGeneration(g, token),
    async prepareToServe(g) {
      const gen = await store.generation(g);
      if (gen && !gen.indexed) await store.createIndex(gen);
    },
    pause: (token, ttlMs) => store.pause(token, ttlMs),
    resume: (token) => store.resume(token),
    switchActive: (from, to, checkpoint, token) => store.switchActive(from, to, checkpoint, token),
    async dropGeneration(g) {
      generations.delete(g);
      await store.dropGeneration(g);
    },
    async status() {
      const active = await store.activeGeneration();
      const building = (await store.buildingGenerations()).at(-1);
      return {
        name: "vector",
        generation: active?.generation ?? 0,
        position: active?.checkpoint ?? 0,
        model: active?.model ?? null,
        dimensions: active?.dimensions ?? null,
        rebuilding: building ? { generation: building.generation, position: building.checkpoint } : null,
      };
    },
  };
}

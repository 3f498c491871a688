// `projectToPgvector`: the vector read model as a projection. The documents a batch folds to
// are embedded when their text changed (title, aliases and content) and written, with the
// checkpoint, in one transaction. Sealed memory text arrives opened; a purged memory keeps no
// text and is embedded from its slot alone.
import type { MemoryDocument, SealRing } from "@cairn/contracts";
import { CairnError } from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import type { ApplyOutcome, PostgresGenerations } from "@cairn/projection-runtime";
import type pg from "pg";
import type { Embedder } from "../../embedders/embedder.ts";
import { textHash } from "../../embedders/embedding-cache.ts";
import { createDocumentProjection, type DocumentProjection } from "../document-projection.ts";
import { toVectorGeneration, type VectorGeneration, vectorLayoutVersion } from "./vector-generations.ts";
import type { VectorRows, VectorUpsert } from "./vector-store.ts";

type StoredRow = { document: MemoryDocument; textHash: string };

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

export type VectorProjection = DocumentProjection & {
  readonly embedder: Embedder;
  /**
   * The active generation, checked against the configured model; with `maxAgeMs`, the one
   * read at most that long ago (a query that asks for no position need not read it each time:
   * a generation a rebuild switched away from is dropped only after a delay).
   */
  servingGeneration(options?: { maxAgeMs?: number }): Promise<VectorGeneration>;
};

export function createVectorProjection(options: {
  generations: PostgresGenerations;
  rows: VectorRows;
  pool: pg.Pool;
  embedder: Embedder;
  log: Pick<EventStore, "readStreams">;
  /** Opens sealed memory text (the seal store). */
  sealRing: SealRing;
}): VectorProjection {
  const { generations, rows, embedder } = options;
  const known = new Map<number, VectorGeneration>();

  async function generationInfo(g: number): Promise<VectorGeneration> {
    const cached = known.get(g);
    if (cached) return cached;
    const row = await generations.generation(g);
    if (!row) throw new CairnError("unavailable", `vector generation ${g} does not exist`);
    const info = toVectorGeneration(row);
    known.set(g, info);
    return info;
  }

  let serving: { generation: VectorGeneration; at: number } | undefined;

  async function servingGeneration(options: { maxAgeMs?: number } = {}): Promise<VectorGeneration> {
    const maxAgeMs = options.maxAgeMs ?? 0;
    if (serving && maxAgeMs > 0 && performance.now() - serving.at <= maxAgeMs) return serving.generation;
    const row =
      (await generations.activeGeneration()) ?? (await generations.generation(await generations.live()));
    if (!row) throw new CairnError("unavailable", "the vector read model has no serving generation");
    const active = toVectorGeneration(row);
    if (active.model !== embedder.model) throw new EmbeddingModelMismatchError(active.model, embedder.model);
    known.set(active.generation, active);
    serving = { generation: active, at: performance.now() };
    return active;
  }

  // A rebuild's batch sent but not yet committed, per generation: what its rows will hold. The
  // next batch is read and folded while this one is written (`pipelinedRebuild`), so its reads
  // of current rows take these first. Should the write not apply, the next one cannot either:
  // its compare-and-set expects the checkpoint this one would have moved to.
  const sending = new Map<number, Map<string, StoredRow>>();

  /** Current rows, a batch still being written included (taken before the read is sent). */
  async function currentRows(gen: VectorGeneration, ids: readonly string[]) {
    const pending = sending.get(gen.generation);
    const sent = pending
      ? ids.flatMap((id) => (pending.has(id) ? [[id, pending.get(id)] as const] : []))
      : [];
    const held = await rows.loadRows(gen, ids);
    for (const [id, row] of sent) held.set(id, row as StoredRow);
    return held;
  }

  async function loadDocuments(g: number, ids: readonly string[]) {
    const held = await currentRows(await generationInfo(g), ids);
    return new Map([...held].map(([id, row]) => [id, row.document]));
  }

  /** Marks a builder's batch as sent: the next batch reads its rows until the write ends. */
  function markSent(g: number, upserts: readonly VectorUpsert[]): () => void {
    const pending = sending.get(g) ?? new Map<string, StoredRow>();
    sending.set(g, pending);
    const mine = upserts.map((u) => {
      const row = { document: u.document, textHash: u.textHash };
      pending.set(u.document.id, row);
      return [u.document.id, row] as const;
    });
    return () => {
      for (const [id, row] of mine) if (pending.get(id) === row) pending.delete(id);
      if (pending.size === 0 && sending.get(g) === pending) sending.delete(g);
    };
  }

  const projection = createDocumentProjection({
    name: "search.vector",
    // A generation of another layout (one table, single-precision embeddings) is rebuilt at
    // start while it serves.
    version: vectorLayoutVersion,
    // Reads and writes go through a pool; the next batch's reads see this one's rows through
    // `sending` (above).
    pipelinedRebuild: true,
    log: options.log,
    sealRing: options.sealRing,
    store: {
      generations,
      loadDocuments,
      async write(g, writer, expected, next, fold) {
        const gen = await generationInfo(g);
        if (gen.model !== embedder.model) throw new EmbeddingModelMismatchError(gen.model, embedder.model);
        // Only a memory that had a document before the batch can have an embedding to keep.
        const stored = await currentRows(gen, [...fold.previous.keys()]);
        const upserts: VectorUpsert[] = [];
        const toEmbed: { index: number; text: string; owner: string | undefined }[] = [];
        const purged: string[] = [];
        for (const document of fold.documents.values()) {
          const text = embeddingText(document);
          const hash = textHash(text);
          const before = stored.get(document.id);
          if (document.purgedAt && !before?.document.purgedAt) purged.push(document.id);
          if (before?.textHash !== hash) {
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
        const sent = writer.kind === "builder" && writer.onSent ? markSent(g, upserts) : undefined;
        let outcome: ApplyOutcome;
        try {
          outcome = await generations.commit(g, writer, expected, next, async (client) => {
            if (upserts.length > 0) await rows.upsertRows(client, gen, upserts);
          });
        } finally {
          sent?.();
        }
        if (outcome === "not_owner") known.delete(g);
        // Embeddings derived from a purged memory's text must not outlive it in the cache.
        if (outcome === "ok" && purged.length > 0) await embedder.forget?.(purged);
        return outcome;
      },
      probe: async () => void (await options.pool.query("select 1")),
      snapshot: async (g) => rows.snapshot(await generationInfo(g)),
      async describe() {
        const active = await generations.activeGeneration();
        if (!active) return { model: null, dimensions: null };
        const info = toVectorGeneration(active);
        return { model: info.model, dimensions: info.dimensions, indexed: info.indexed };
      },
    },
  });
  return { ...projection, embedder, servingGeneration };
}

// Both search read models are the same kind of projection: they hold the current document of
// every memory stream (and the tenants' synonym tables) and differ only in how they store it.
// This builds the runtime's projection from a store: the fold, the refusals, and the repair of
// documents from the log (re-folding a stream up to the generation's checkpoint) are here, once.
import {
  type DecodedEvent,
  type MemoryDocument,
  type ProjectionName,
  type SealRing,
  type StoredEvent,
  streamIdFor,
} from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import { memoryIdOfStream } from "@cairn/memory-model";
import {
  type ApplyOutcome,
  type Generations,
  type Projection,
  type ProjectionSnapshot,
  type ProjectionWriter,
  prepareBatch,
} from "@cairn/projection-runtime";
import {
  type DocumentFold,
  existingMemoryIdsOf,
  foldMemoryDocuments,
  searchHandles,
} from "./fold-memory-documents.ts";

export type DocumentStore = {
  readonly generations: Generations;
  loadDocuments(generation: number, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  /** Writes a fold's documents and synonyms and moves the checkpoint, atomically. */
  write(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    next: number,
    fold: DocumentFold,
  ): Promise<ApplyOutcome>;
  probe(): Promise<void>;
  snapshot(generation: number): Promise<ProjectionSnapshot>;
  describe?(): Promise<Record<string, unknown>>;
};

export type DocumentProjection = Projection & {
  loadDocuments(generation: number, ids: readonly string[]): Promise<Map<string, MemoryDocument>>;
  /** Re-folds these memories from the log up to the live generation's checkpoint. */
  reproject(ids: readonly string[]): Promise<ReprojectOutcome>;
};

export type ReprojectOutcome = {
  generation: number;
  position: number;
  reprojected: { id: string; version: number }[];
  unchanged: string[];
  /** No such memory stream in the log up to the checkpoint (a rebuild removes such documents). */
  notInLog: string[];
};

export type DocumentProjectionOptions = {
  name: ProjectionName;
  /** See `Projection.version`. */
  version?: string;
  /** See `Projection.pipelinedRebuild`: the next batch's reads see a write once it calls `onSent`. */
  pipelinedRebuild?: boolean;
  store: DocumentStore;
  log: Pick<EventStore, "readStreams">;
  sealRing: SealRing;
};

export function createDocumentProjection(options: DocumentProjectionOptions): DocumentProjection {
  const { store, log, sealRing } = options;

  async function reprojectOnce(
    ids: readonly string[],
  ): Promise<{ outcome: ApplyOutcome; reply: ReprojectOutcome }> {
    const generation = await store.generations.live();
    const position = await store.generations.checkpoint(generation);
    const held = await store.loadDocuments(generation, ids);
    const streams = await log.readStreams(ids.map((id) => streamIdFor("memory", id)));
    const stored: StoredEvent[] = [];
    const reply: ReprojectOutcome = { generation, position, reprojected: [], unchanged: [], notInLog: [] };
    for (const id of ids) {
      const stream = (streams.get(streamIdFor("memory", id)) ?? []).filter((e) => e.position <= position);
      const version = stream.at(-1)?.version ?? 0;
      if (version === 0) {
        reply.notInLog.push(id);
        continue;
      }
      const from = held.get(id)?.version ?? 0;
      // Current, or ahead of the log (a document the log cannot explain: only a rebuild fixes it).
      if (from >= version) {
        reply.unchanged.push(id);
        continue;
      }
      stored.push(...stream.filter((e) => e.version > from));
      reply.reprojected.push({ id, version });
    }
    if (stored.length === 0) return { outcome: "ok", reply };
    stored.sort((a, b) => a.position - b.position);
    const { events, letters } = await prepareBatch(projection, stored, sealRing);
    if (letters[0]) throw new Error(letters[0].error);
    const fold = foldMemoryDocuments(events, held);
    if (fold.refused[0]) throw new Error(fold.refused[0].error);
    // Expected and next are the checkpoint: nothing of the log moves, the documents do, and a
    // live write in between makes this one stale (then it reads again).
    const outcome = await store.write(generation, { kind: "live" }, position, position, fold);
    return { outcome, reply };
  }

  const projection: DocumentProjection = {
    name: options.name,
    ...(options.version === undefined ? {} : { version: options.version }),
    ...(options.pipelinedRebuild ? { pipelinedRebuild: true } : {}),
    handles: searchHandles,
    readsText: true,
    generations: store.generations,
    loadDocuments: (g, ids) => store.loadDocuments(g, ids),
    snapshot: (g) => store.snapshot(g),
    async apply(batch) {
      const current = await store.loadDocuments(batch.generation, existingMemoryIdsOf(batch.events));
      const fold = foldMemoryDocuments(batch.events, current);
      const outcome = await store.write(batch.generation, batch.writer, batch.expected, batch.next, fold);
      return { outcome, refused: outcome === "ok" ? fold.refused : [] };
    },
    async reproject(ids) {
      for (let attempt = 1; ; attempt += 1) {
        const { outcome, reply } = await reprojectOnce([...new Set(ids)]);
        if (outcome === "ok") return reply;
        if (attempt >= 20)
          throw new Error(`reprojecting ${options.name} kept finding its checkpoint moved (${outcome})`);
        await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    },
    async repair(_generation, events: readonly DecodedEvent[]) {
      const ids = events.flatMap((e) => {
        const id = e.streamType === "memory" ? memoryIdOfStream(e.streamId) : undefined;
        return id ? [id] : [];
      });
      if (ids.length > 0) await projection.reproject(ids);
      // A synonyms change applies on its own: the table is replaced as a whole.
      const settings = events.filter((e) => e.type === "tenant.settings_changed");
      if (settings.length > 0) {
        const generation = await store.generations.live();
        for (let attempt = 1; attempt <= 20; attempt += 1) {
          const position = await store.generations.checkpoint(generation);
          const fold = foldMemoryDocuments(settings, new Map());
          if ((await store.write(generation, { kind: "live" }, position, position, fold)) === "ok") break;
        }
      }
    },
    probe: () => store.probe(),
    ...(store.describe
      ? { describe: () => (store.describe as () => Promise<Record<string, unknown>>)() }
      : {}),
  };
  return projection;
}

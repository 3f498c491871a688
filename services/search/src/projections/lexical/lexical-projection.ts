// `projectToRediSearch`: the lexical read model as a projection. The documents a batch folds
// to and the tenants' synonym tables are written, with the checkpoint, in one compare-and-set
// script (sealed memory text arrives opened; a purged memory's stays empty).
import type { SealRing } from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import { snapshotRedisPrefix } from "@cairn/projection-runtime";
import type { Redis } from "ioredis";
import { createDocumentProjection, type DocumentProjection } from "../document-projection.ts";
import { lexicalAnalysisVersion } from "./lexical-index.ts";
import type { LexicalStore, LexicalWrite } from "./lexical-store.ts";

export function createLexicalProjection(options: {
  store: LexicalStore;
  redis: Redis;
  log: Pick<EventStore, "readStreams">;
  sealRing: SealRing;
}): DocumentProjection {
  const { store } = options;
  return createDocumentProjection({
    name: "search.lexical",
    version: lexicalAnalysisVersion,
    // One Redis connection: documents and statistics read for a batch come after the write of
    // the batch before it, which the commit script makes atomic with its checkpoint.
    pipelinedRebuild: true,
    log: options.log,
    sealRing: options.sealRing,
    store: {
      generations: store.generations,
      loadDocuments: (g, ids) => store.loadDocuments(g, ids),
      write(g, writer, expected, next, fold) {
        const writes: LexicalWrite[] = [
          ...[...fold.documents.values()].map((document) => ({
            kind: "document" as const,
            document,
            previous: fold.previous.get(document.id),
          })),
          ...[...fold.synonyms].map(([tenant, groups]) => ({ kind: "synonyms" as const, tenant, groups })),
          ...[...fold.retrieval].map(([tenant, settings]) => ({
            kind: "retrieval" as const,
            tenant,
            settings,
          })),
        ];
        return store.commit(g, writer, expected, next, writes);
      },
      probe: async () => void (await options.redis.ping()),
      snapshot: (g) => snapshotRedisPrefix(options.redis, store.generations.prefix(g)),
      describe: async () => ({ redisearch: store.module.version }),
    },
  });
}

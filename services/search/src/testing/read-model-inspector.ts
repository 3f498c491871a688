// Test support: direct reads of both read models (documents, embeddings, checkpoints), for
// asserting what a projection wrote rather than only what a query shows.
import type { MemoryDocument } from "@cairn/contracts";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";
import type { Embedder } from "../embedders/embedder.ts";
import { searchEnvSchema } from "../env.ts";
import { type OpenReadModels, openReadModels } from "../open-read-models.ts";
import { type VectorGeneration, vectorRowsWithDocuments } from "../projections/vector/vector-generations.ts";

export type ReadModelInspector = {
  models: OpenReadModels;
  lexicalDocument(id: string): Promise<MemoryDocument | null>;
  vectorDocument(id: string): Promise<MemoryDocument | null>;
  embedding(id: string): Promise<number[] | null>;
  /** Every document of the active generation of each read model, by id. */
  allDocuments(): Promise<{ lexical: Map<string, MemoryDocument>; vector: Map<string, MemoryDocument> }>;
  /** Every embedding of the active vector generation, by id. */
  allEmbeddings(): Promise<Map<string, number[]>>;
  checkpoints(): Promise<{ lexical: number; vector: number }>;
  generations(): Promise<{ lexical: number | null; vector: number | null }>;
  close(): Promise<void>;
};

export async function inspectReadModels(
  env: Record<string, string>,
  embedder?: Embedder,
): Promise<ReadModelInspector> {
  const models = await openReadModels(
    parseEnv(searchEnvSchema, env),
    createLogger("inspector", "silent"),
    embedder ? { embedder } : {},
  );
  const { lexicalStore, vectorRows, pool } = models;

  async function activeVector(): Promise<VectorGeneration | null> {
    return (await models.vector.generations.active()) === null ? null : models.vector.servingGeneration();
  }

  async function vectorTable(): Promise<string | null> {
    const active = await activeVector();
    return active ? `cairn_search.${active.tableName}` : null;
  }

  const inspector: ReadModelInspector = {
    models,
    async lexicalDocument(id) {
      const g = await lexicalStore.activeGeneration();
      return g === null ? null : lexicalStore.loadDocument(g, id);
    },
    async vectorDocument(id) {
      const g = await activeVector();
      if (!g) return null;
      return (await vectorRows.loadRows(g, [id])).get(id)?.document ?? null;
    },
    async embedding(id) {
      const g = await activeVector();
      return g ? vectorRows.embeddingOf(g, id) : null;
    },
    async allDocuments() {
      const lexical = new Map<string, MemoryDocument>();
      const g = await lexicalStore.activeGeneration();
      if (g !== null) {
        let cursor = "0";
        const prefix = lexicalStore.docKey(g, "");
        do {
          const [next, keys] = await models.redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
          cursor = next;
          const ids = keys.map((k) => k.slice(prefix.length));
          for (const [id, doc] of await lexicalStore.loadDocuments(g, ids)) lexical.set(id, doc);
        } while (cursor !== "0");
      }
      const vector = new Map<string, MemoryDocument>();
      const active = await activeVector();
      if (active) {
        const { rows } = await pool.query<{ memory_id: string; document: MemoryDocument }>(
          `select memory_id::text, document from ${vectorRowsWithDocuments(active)}`,
        );
        for (const row of rows) vector.set(row.memory_id, row.document);
      }
      return { lexical, vector };
    },
    async allEmbeddings() {
      const out = new Map<string, number[]>();
      const table = await vectorTable();
      if (!table) return out;
      const { rows } = await pool.query<{ memory_id: string; embedding: string }>(
        `select memory_id::text, embedding::text from ${table}`,
      );
      for (const row of rows) out.set(row.memory_id, JSON.parse(row.embedding) as number[]);
      return out;
    },
    async checkpoints() {
      const g = await lexicalStore.activeGeneration();
      const v = await models.vector.generations.active();
      return {
        lexical: g === null ? 0 : await lexicalStore.checkpoint(g),
        vector: v === null ? 0 : await models.vector.generations.checkpoint(v),
      };
    },
    async generations() {
      return {
        lexical: await lexicalStore.activeGeneration(),
        vector: await models.vector.generations.active(),
      };
    },
    close: () => models.close(),
  };
  return inspector;
}

// The generations of the vector read model: the projection runtime's Postgres generations of
// `search.vector`, each with its own table `cairn_search.vectors_g<n>` whose embedding column
// has the dimension of the model it was built with (remembered in the generation's meta), and
// an HNSW index (cosine) built once the table is loaded.
import {
  createPostgresGenerations,
  type PostgresGeneration,
  type PostgresGenerations,
} from "@cairn/projection-runtime";
import type pg from "pg";

export type VectorGeneration = {
  generation: number;
  tableName: string;
  model: string;
  dimensions: number;
  status: PostgresGeneration["status"];
  checkpoint: number;
  /** The HNSW index is built. */
  indexed: boolean;
};

export function toVectorGeneration(g: PostgresGeneration): VectorGeneration {
  const meta = g.meta as { tableName?: string; model?: string; dimensions?: number };
  return {
    generation: g.generation,
    tableName: meta.tableName ?? `vectors_g${g.generation}`,
    model: meta.model ?? "",
    dimensions: meta.dimensions ?? 0,
    status: g.status,
    checkpoint: g.checkpoint,
    indexed: g.prepared,
  };
}

/** Table names come from generation numbers only, never from input. */
export function vectorTable(g: { tableName: string }): string {
  if (!/^vectors_g\d+$/.test(g.tableName)) throw new Error(`unexpected vector table name ${g.tableName}`);
  return `cairn_search.${g.tableName}`;
}

async function createIndex(db: pg.Pool | pg.PoolClient, g: VectorGeneration): Promise<void> {
  const client = "release" in db ? db : await db.connect();
  try {
    // An HNSW build is much faster when the graph fits in memory.
    await client.query("set maintenance_work_mem = '512MB'");
    await client.query(
      `create index if not exists ${g.tableName}_hnsw on ${vectorTable(g)} using hnsw (embedding vector_cosine_ops)`,
    );
    // A table loaded in bulk has no statistics yet: without them the planner takes the
    // visibility btree and sorts every row instead of walking the HNSW graph.
    await client.query(`analyze ${vectorTable(g)}`);
  } finally {
    await client.query("reset maintenance_work_mem").catch(() => undefined);
    if (client !== db) (client as pg.PoolClient).release();
  }
}

export function createVectorGenerations(
  pool: pg.Pool,
  embedder: { model: string; dimensions(): Promise<number> },
): PostgresGenerations {
  return createPostgresGenerations(pool, "search.vector", {
    metaForNew: async () => ({ model: embedder.model, dimensions: await embedder.dimensions() }),
    async createData(client, generation, meta) {
      const dimensions = Number(meta.dimensions);
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_000) {
        throw new Error(`invalid embedding dimension ${meta.dimensions}`);
      }
      const tableName = `vectors_g${generation}`;
      const table = vectorTable({ tableName });
      await client.query(`
        create table ${table} (
          memory_id uuid primary key,
          tenant text not null,
          scope text not null,
          agent text not null,
          tier text not null,
          status text not null,
          kind text not null,
          project text,
          tags text[] not null,
          created_at timestamptz not null,
          updated_at timestamptz not null,
          invalid_at timestamptz,
          version integer not null,
          document jsonb not null,
          text_hash text not null,
          embedding vector(${dimensions}) not null
        )`);
      // Visibility is "this tenant, or global": with these two the planner can answer a small
      // tenant exactly from its own rows and leave large ones to the HNSW index.
      await client.query(`create index ${tableName}_visibility on ${table} (tenant, tier, status)`);
      await client.query(
        `create index ${tableName}_global on ${table} (tier, status) where scope = 'global'`,
      );
      return { tableName };
    },
    async dropData(client, generation) {
      await client.query(`drop table if exists ${vectorTable(toVectorGeneration(generation))}`);
    },
    prepareToServe: (generation, db) => createIndex(db, toVectorGeneration(generation)),
    // A rebuild with another embedding model starts afresh rather than continue.
    resumable: (generation) => toVectorGeneration(generation).model === embedder.model,
    preparedFromStart: true,
  });
}

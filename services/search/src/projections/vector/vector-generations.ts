// The generations of the vector read model: the projection runtime's Postgres generations of
// `search.vector`, each with its own table `cairn_search.vectors_g<n>` whose embedding column
// has the dimension of the model it was built with (remembered in the generation's meta), and
// an HNSW index (cosine) built once the table is loaded.
//
// The table is partitioned by audience (hash, `vectorPartitions` parts): a team or agent memory's
// audience is its tenant, a global memory's is everyone (''). A query reads its tenant's
// partition and the global one, and in each the rows nearly all pass its filters, so the HNSW
// graph of that partition answers it; over one graph of every tenant, a filter that keeps one
// tenant in ten makes the index walk ten times as far, and an exact scan reads every row of
// the tenant. The embedding is stored in the row (`storage main`), not out of line, so
// neither an exact scan nor the distance of a hit reads TOAST. Embeddings are kept in half
// precision (`halfvec`): the HNSW walk touches half the memory, which at 100,000 memories made
// a query's walk over a partition of three tenants 6.2-6.6 ms -> 3.6 ms (median of 30 queries),
// and the retrieval bench gives the same figures on LoCoMo to the third decimal.
//
// A memory's document and the hash of its embedded text, which only the projection reads
// (to fold the next event, and to keep an embedding whose text did not change), are kept
// apart, in `<table>_documents` by memory id: the rows the HNSW walk fetches to check a
// query's filters are then half as wide (about 1 KB, the embedding most of it, against 1.9 KB
// with the document). A generation from before keeps them in its rows; it serves until a
// rebuild replaces it.
import {
  createPostgresGenerations,
  type PostgresGeneration,
  type PostgresGenerations,
} from "@cairn/projection-runtime";
import type pg from "pg";

/**
 * What a generation's table looks like: `audience` (partitioned by audience, embeddings in the
 * row), or `single` (one table, from before; it serves until a rebuild replaces it).
 */
export type VectorLayout = "audience" | "single";

/** The layout new generations get; the projection's version follows it. */
export const vectorLayoutVersion = "audience-partitions-v4-64-halfvec-documents-apart";

/**
 * Where a generation keeps documents and text hashes: `apart` (in `<table>_documents`, new
 * generations) or `row` (in the table's rows, from before).
 */
export type DocumentPlace = "apart" | "row";

/**
 * How a generation stores embeddings: `halfvec` (half precision, new generations) or `vector`
 * (single precision, from before; it serves until a rebuild replaces it).
 */
export type EmbeddingType = "halfvec" | "vector";

/** The embedding type a generation's meta records (none recorded: from before, `vector`). */
function embeddingTypeOf(meta: { embedding?: unknown }): EmbeddingType {
  return meta.embedding === "halfvec" ? "halfvec" : "vector";
}

/** What new generations store. */
const newEmbeddingType: EmbeddingType = "halfvec";

/**
 * Hash partitions of a generation's table. Audiences that share a partition share its graph,
 * and a query's filter then drops the others' rows as the walk meets them: at 100,000 memories
 * a tenant's nearest 100 took 1.7-2.3 ms alone in its partition and 2.8-5.8 ms beside one or
 * two other tenants of 10,000. More partitions keep more audiences alone; a generation from
 * before keeps the partitions it was made with.
 */
export const vectorPartitions = 64;

/** The audience of a memory: who may see it before the finer rules (scope, agent) apply. */
export function audienceOf(document: { tenant: string; scope: string }): string {
  return document.scope === "global" ? "" : document.tenant;
}

export type VectorGeneration = {
  generation: number;
  tableName: string;
  layout: VectorLayout;
  embeddingType: EmbeddingType;
  documents: DocumentPlace;
  model: string;
  dimensions: number;
  status: PostgresGeneration["status"];
  checkpoint: number;
  /** The HNSW index is built. */
  indexed: boolean;
};

export function toVectorGeneration(g: PostgresGeneration): VectorGeneration {
  const meta = g.meta as {
    tableName?: string;
    model?: string;
    dimensions?: number;
    layout?: string;
    embedding?: string;
    documents?: string;
  };
  return {
    generation: g.generation,
    tableName: meta.tableName ?? `vectors_g${g.generation}`,
    layout: meta.layout === "audience" ? "audience" : "single",
    embeddingType: embeddingTypeOf(meta),
    documents: meta.documents === "apart" ? "apart" : "row",
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

/** The table of a generation's documents and text hashes (`apart`). */
export function vectorDocumentsTable(g: { tableName: string }): string {
  return `${vectorTable(g)}_documents`;
}

/**
 * Where a generation's rows are read with their documents and text hashes: its table, or its
 * table joined with its documents (`apart`; a `left` join keeps a row whose document is gone).
 */
export function vectorRowsWithDocuments(
  g: { tableName: string; documents: DocumentPlace },
  join: "inner" | "left" = "inner",
): string {
  if (g.documents === "row") return vectorTable(g);
  return `${vectorTable(g)} ${join === "left" ? "left join" : "join"} ${vectorDocumentsTable(g)} using (memory_id)`;
}

/** The columns whose statistics plans use: the filters, not the embedding or the document. */
const analyzedColumns = [
  "audience",
  "memory_id",
  "tenant",
  "scope",
  "agent",
  "tier",
  "status",
  "kind",
  "project",
  "tags",
  "created_at",
  "updated_at",
  "invalid_at",
  "episode",
];

/** Partitions whose HNSW graphs are built at once, each on a connection of its own (and a core). */
export const parallelGraphBuilds = 2;

/** An HNSW build is much faster when the graph fits in memory. */
const buildMemory = "set maintenance_work_mem = '512MB'";

async function buildGraphs(db: pg.Pool | pg.PoolClient, g: VectorGeneration): Promise<void> {
  const index = `${g.tableName}_hnsw`;
  const method = `using hnsw (embedding ${g.embeddingType}_cosine_ops)`;
  if ("release" in db || g.layout !== "audience") {
    // In a transaction (the first, empty generation), or one table: one statement.
    const client = "release" in db ? db : await db.connect();
    try {
      await client.query(buildMemory);
      await client.query(`create index if not exists ${index} on ${vectorTable(g)} ${method}`);
    } finally {
      await client.query("reset maintenance_work_mem").catch(() => undefined);
      if (client !== db) (client as pg.PoolClient).release();
    }
    return;
  }
  // One graph per partition. Built by one statement on the table, they are built one after
  // another, each on one core unless it is large enough for Postgres's parallel build (then
  // with helpers that share the same cores). So the table's index is made without its
  // partitions' (invalid until all are attached), and `parallelGraphBuilds` connections build
  // and attach the partitions' graphs side by side, each on one core (at 100,000 memories on 2
  // cores: 24 s one after another with helpers, 15 s two at a time without). Each build is its
  // own transaction: an interrupted one leaves no half graph, and building again skips the
  // graphs already there (attaching one that is attached does nothing).
  await db.query(`create index if not exists ${index} on only ${vectorTable(g)} ${method}`);
  // The largest first, so that the last to finish is a small one: audiences are few and
  // uneven (a partition may hold a third of the rows, another none).
  // The partitions the table has (a generation from before has fewer).
  const { rows } = await db.query<{ part: number }>(
    `select substring(c.relname from '_p([0-9]+)$')::int as part
       from pg_inherits i join pg_class c on c.oid = i.inhrelid
      where i.inhparent = $1::regclass
      order by pg_relation_size(c.oid) desc, part`,
    [vectorTable(g)],
  );
  const parts = rows.map((r) => r.part);
  const builder = async () => {
    const client = await db.connect();
    let broken: Error | undefined;
    try {
      await client.query(buildMemory);
      await client.query("set max_parallel_maintenance_workers = 0");
      for (let part = parts.shift(); part !== undefined; part = parts.shift()) {
        const partIndex = `${index}_p${part}`;
        await client.query(`create index if not exists ${partIndex} on ${vectorTable(g)}_p${part} ${method}`);
        await client.query(`alter index ${vectorTable(g)}_hnsw attach partition cairn_search.${partIndex}`);
      }
      await client.query("reset maintenance_work_mem");
      await client.query("reset max_parallel_maintenance_workers");
    } catch (error) {
      // The other builders stop after the graph they are building.
      parts.length = 0;
      broken = error as Error;
      throw error;
    } finally {
      client.release(broken);
    }
  };
  await Promise.all(Array.from({ length: parallelGraphBuilds }, builder));
}

async function createIndex(db: pg.Pool | pg.PoolClient, g: VectorGeneration): Promise<void> {
  await buildGraphs(db, g);
  // A table loaded in bulk has no statistics yet: without them the planner takes the
  // visibility btree and sorts every row instead of walking the HNSW graph. The columns
  // queries filter on, not the embedding and the document: sampling those is most of what
  // an analyze of the whole row costs, and no plan uses them.
  // (A table from before the audience layout has other columns: all of it.)
  await db.query(
    g.layout === "audience"
      ? `analyze ${vectorTable(g)} (${analyzedColumns.join(", ")})`
      : `analyze ${vectorTable(g)}`,
  );
}

export function createVectorGenerations(
  pool: pg.Pool,
  embedder: { model: string; dimensions(): Promise<number> },
): PostgresGenerations {
  return createPostgresGenerations(pool, "search.vector", {
    version: vectorLayoutVersion,
    metaForNew: async () => ({
      model: embedder.model,
      dimensions: await embedder.dimensions(),
      layout: "audience",
      embedding: newEmbeddingType,
      documents: "apart",
    }),
    async createData(client, generation, meta) {
      const dimensions = Number(meta.dimensions);
      if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_000) {
        throw new Error(`invalid embedding dimension ${meta.dimensions}`);
      }
      const tableName = `vectors_g${generation}`;
      const table = vectorTable({ tableName });
      const type = embeddingTypeOf(meta);
      const apart = meta.documents === "apart";
      await client.query(`
        create table ${table} (
          memory_id uuid not null,
          audience text not null,
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
          version integer not null,${apart ? "" : "\n          document jsonb not null,\n          text_hash text not null,"}
          episode text,
          episode_order double precision,
          embedding ${type}(${dimensions}) not null,
          primary key (audience, memory_id)
        ) partition by hash (audience)`);
      await client.query(`alter table ${table} alter column embedding set storage main`);
      for (let part = 0; part < vectorPartitions; part += 1) {
        await client.query(
          `create table ${table}_p${part} partition of ${table}
             for values with (modulus ${vectorPartitions}, remainder ${part})`,
        );
      }
      // By id (the projection's reads of current rows), and the filters of a query's audience:
      // a small audience is answered exactly from these, a large one from the HNSW graph.
      await client.query(`create index ${tableName}_memory on ${table} (memory_id)`);
      await client.query(`create index ${tableName}_visibility on ${table} (audience, tier, status)`);
      if (apart) {
        await client.query(`
          create table ${vectorDocumentsTable({ tableName })} (
            memory_id uuid primary key,
            document jsonb not null,
            text_hash text not null
          )`);
      }
      return { tableName };
    },
    async dropData(client, generation) {
      const g = toVectorGeneration(generation);
      await client.query(`drop table if exists ${vectorTable(g)}, ${vectorDocumentsTable(g)}`);
    },
    prepareToServe: (generation, db) => createIndex(db, toVectorGeneration(generation)),
    // A rebuild with another embedding model starts afresh rather than continue.
    resumable: (generation) => toVectorGeneration(generation).model === embedder.model,
    preparedFromStart: true,
  });
}

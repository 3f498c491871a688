// The vector read model in Postgres + pgvector, in generations. Each generation is one table
// `cairn_search.vectors_g<n>` whose embedding column has the dimension of its model, with an
// HNSW index (cosine) and the filter columns of the document; `cairn_search.vector_generations`
// says which one is active, which are being built, and each one's checkpoint.
import type { MemoryDocument } from "@cairn/contracts";
import { MemoryDocumentSchema } from "@cairn/contracts";
import type pg from "pg";
import pgvector from "pgvector";
import { recordDeadLetters } from "../dead-letters.ts";
import type { DeadLetter } from "../fold-events.ts";
import { normalizeTag } from "../lexical/text-analysis.ts";

export type VectorGeneration = {
  generation: number;
  tableName: string;
  model: string;
  dimensions: number;
  status: "building" | "active" | "retired";
  builder: string | null;
  checkpoint: number;
  indexed: boolean;
};

export type VectorWriter = { kind: "live" } | { kind: "builder"; token: string };

/** A document to write; `embedding: null` keeps the stored vector (its text did not change). */
export type VectorUpsert = { document: MemoryDocument; textHash: string; embedding: number[] | null };

export type VectorCommitOutcome = "ok" | "not_owner" | "paused" | "stale";

export type VectorHit = { id: string; score: number; document: MemoryDocument };

/** A WHERE clause over the filter columns, with its parameters numbered from `$2` ($1 is the query vector). */
export type VectorFilter = { sql: string; params: unknown[] };

export type VectorStore = {
  activeGeneration(): Promise<VectorGeneration | null>;
  /** The active generation, creating the first one (for `model`) when there is none. */
  ensureActiveGeneration(model: string, dimensions: number): Promise<VectorGeneration>;
  createGeneration(
    model: string,
    dimensions: number,
    token: string,
    options?: { indexed?: boolean },
  ): Promise<VectorGeneration>;
  buildingGenerations(): Promise<VectorGeneration[]>;
  retiredGenerations(): Promise<VectorGeneration[]>;
  claimGeneration(generation: number, token: string): Promise<void>;
  generation(generation: number): Promise<VectorGeneration | null>;
  checkpoint(generation: number): Promise<number>;
  loadRows(
    generation: VectorGeneration,
    ids: readonly string[],
  ): Promise<Map<string, { document: MemoryDocument; textHash: string }>>;
  commit(
    generation: VectorGeneration,
    writer: VectorWriter,
    expected: number,
    next: number,
    upserts: readonly VectorUpsert[],
    deadLetters: readonly DeadLetter[],
  ): Promise<VectorCommitOutcome>;
  recordDeadLetters(generation: number, letters: readonly DeadLetter[]): Promise<void>;
  /** Builds the HNSW index of a generation loaded without it (a rebuild indexes once, at the end). */
  createIndex(generation: VectorGeneration): Promise<void>;
  pause(token: string, ttlMs: number): Promise<void>;
  resume(token: string): Promise<void>;
  isPaused(): Promise<boolean>;
  switchActive(
    from: number | null,
    to: number,
    checkpoint: number,
    token: string,
  ): Promise<"ok" | "moved" | "behind">;
  dropGeneration(generation: number): Promise<void>;
  search(
    generation: VectorGeneration,
    vector: number[],
    filter: VectorFilter,
    limit: number,
  ): Promise<VectorHit[]>;
  /** The stored embedding of a memory (tests and diagnostics). */
  embeddingOf(generation: VectorGeneration, id: string): Promise<number[] | null>;
};

type GenerationRow = {
  generation: number;
  table_name: string;
  model: string;
  dimensions: number;
  status: VectorGeneration["status"];
  builder: string | null;
  checkpoint: string;
  indexed: boolean;
};

const generationColumns = "generation, table_name, model, dimensions, status, builder, checkpoint, indexed";

function toGeneration(row: GenerationRow): VectorGeneration {
  return {
    generation: row.generation,
    tableName: row.table_name,
    model: row.model,
    dimensions: row.dimensions,
    status: row.status,
    builder: row.builder,
    checkpoint: Number(row.checkpoint),
    indexed: row.indexed,
  };
}

/** Table names come from generation numbers only, never from input. */
function table(g: VectorGeneration | { tableName: string }): string {
  if (!/^vectors_g\d+$/.test(g.tableName)) throw new Error(`unexpected vector table name ${g.tableName}`);
  return `cairn_search.${g.tableName}`;
}

const pauseProjection = "vector";

export function createVectorStore(options: { pool: pg.Pool }): VectorStore {
  const { pool } = options;

  async function withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("begin");
      try {
        const result = await fn(client);
        await client.query("commit");
        return result;
      } catch (error) {
        await client.query("rollback").catch((e: Error) => {
          broken = e;
        });
        throw error;
      }
    } finally {
      client.release(broken ?? false);
    }
  }

  async function createIndexOn(db: pg.PoolClient | pg.Pool, g: VectorGeneration): Promise<void> {
    await db.query(
      `create index if not exists ${g.tableName}_hnsw on ${table(g)} using hnsw (embedding vector_cosine_ops)`,
    );
  }

  const store: VectorStore = {
    async activeGeneration() {
      const { rows } = await pool.query<GenerationRow>(
        `select ${generationColumns} from cairn_search.vector_generations where status = 'active'`,
      );
      return rows[0] ? toGeneration(rows[0]) : null;
    },
    async ensureActiveGeneration(model, dimensions) {
      const active = await store.activeGeneration();
      if (active) return active;
      try {
        return await withTransaction(async (client) => {
          const created = await insertGeneration(client, model, dimensions, "active", null);
          await createIndexOn(client, created);
          await client.query(
            "update cairn_search.vector_generations set indexed = true, activated_at = now() where generation = $1",
            [created.generation],
          );
          return { ...created, indexed: true };
        });
      } catch (error) {
        // Another copy created the first generation at the same moment (one active at a time).
        if ((error as { code?: string }).code === "23505")
          return (await store.activeGeneration()) as VectorGeneration;
        throw error;
      }
    },
    async createGeneration(model, dimensions, token, createOptions = {}) {
      return withTransaction(async (client) => {
        const created = await insertGeneration(client, model, dimensions, "building", token);
        if (createOptions.indexed) {
          await createIndexOn(client, created);
          await client.query(
            "update cairn_search.vector_generations set indexed = true where generation = $1",
            [created.generation],
          );
          return { ...created, indexed: true };
        }
        return created;
      });
    },
    async buildingGenerations() {
      const { rows } = await pool.query<GenerationRow>(
        `select ${generationColumns} from cairn_search.vector_generations where status = 'building' order by generation`,
      );
      return rows.map(toGeneration);
    },
    async retiredGenerations() {
      const { rows } = await pool.query<GenerationRow>(
        `select ${generationColumns} from cairn_search.vector_generations where status = 'retired' order by generation`,
      );
      return rows.map(toGeneration);
    },
    async claimGeneration(generation, token) {
      await pool.query("update cairn_search.vector_generations set builder = $2 where generation = $1", [
        generation,
        token,
      ]);
    },
    async generation(generation) {
      const { rows } = await pool.query<GenerationRow>(
        `select ${generationColumns} from cairn_search.vector_generations where generation = $1`,
        [generation],
      );
      return rows[0] ? toGeneration(rows[0]) : null;
    },
    async checkpoint(generation) {
      const { rows } = await pool.query<{ checkpoint: string }>(
        "select checkpoint from cairn_search.vector_generations where generation = $1",
        [generation],
      );
      return rows[0] ? Number(rows[0].checkpoint) : 0;
    },
    async loadRows(g, ids) {
      const out = new Map<string, { document: MemoryDocument; textHash: string }>();
      if (ids.length === 0) return out;
      const { rows } = await pool.query<{ memory_id: string; document: unknown; text_hash: string }>(
        `select memory_id::text, document, text_hash from ${table(g)} where memory_id = any($1::uuid[])`,
        [ids],
      );
      for (const row of rows) {
        out.set(row.memory_id, {
          document: MemoryDocumentSchema.parse(row.document),
          textHash: row.text_hash,
        });
      }
      return out;
    },
    async commit(g, writer, expected, next, upserts, deadLetters) {
      return withTransaction(async (client) => {
        // Compare-and-set on the checkpoint first: it locks the generation row, so concurrent
        // writers of one generation queue here and all but the first find it moved.
        const owner =
          writer.kind === "live"
            ? `status = 'active' and not exists (select 1 from cairn_search.pauses where projection = '${pauseProjection}' and until > now())`
            : "status = 'building' and builder = $4";
        const moved = await client.query(
          `update cairn_search.vector_generations set checkpoint = $3
            where generation = $1 and checkpoint = $2 and ${owner}`,
          writer.kind === "live"
            ? [g.generation, expected, next]
            : [g.generation, expected, next, writer.token],
        );
        if (moved.rowCount === 0) {
          const { rows } = await client.query<{ status: string; builder: string | null; checkpoint: string }>(
            "select status, builder, checkpoint from cairn_search.vector_generations where generation = $1",
            [g.generation],
          );
          const row = rows[0];
          if (!row) return "not_owner";
          if (writer.kind === "live" && row.status !== "active") return "not_owner";
          if (writer.kind === "builder" && (row.status !== "building" || row.builder !== writer.token)) {
            return "not_owner";
          }
          if (Number(row.checkpoint) !== expected) return "stale";
          return "paused";
        }
        if (upserts.length > 0) await upsertRows(client, g, upserts);
        await recordDeadLetters(client, "vector", g.generation, deadLetters);
        return "ok";
      });
    },
    recordDeadLetters: (generation, letters) => recordDeadLetters(pool, "vector", generation, letters),
    async createIndex(g) {
      const client = await pool.connect();
      try {
        // An HNSW build is much faster when the graph fits in memory.
        await client.query("set maintenance_work_mem = '512MB'");
        await createIndexOn(client, g);
        // A table loaded in bulk has no statistics yet: without them the planner takes the
        // visibility btree and sorts every row instead of walking the HNSW graph.
        await client.query(`analyze ${table(g)}`);
        await client.query(
          "update cairn_search.vector_generations set indexed = true where generation = $1",
          [g.generation],
        );
      } finally {
        await client.query("reset maintenance_work_mem").catch(() => undefined);
        client.release();
      }
    },
    async pause(token, ttlMs) {
      await pool.query(
        `insert into cairn_search.pauses (projection, token, until)
         values ($1, $2, now() + $3 * interval '1 millisecond')
         on conflict (projection) do update set token = excluded.token, until = excluded.until`,
        [pauseProjection, token, ttlMs],
      );
    },
    async resume(token) {
      await pool.query("delete from cairn_search.pauses where projection = $1 and token = $2", [
        pauseProjection,
        token,
      ]);
    },
    async isPaused() {
      const { rows } = await pool.query(
        "select 1 from cairn_search.pauses where projection = $1 and until > now()",
        [pauseProjection],
      );
      return rows.length > 0;
    },
    async switchActive(from, to, checkpoint, token) {
      return withTransaction(async (client) => {
        if (from !== null) {
          const retired = await client.query(
            `update cairn_search.vector_generations set status = 'retired'
              where generation = $1 and status = 'active' and checkpoint = $2`,
            [from, checkpoint],
          );
          if (retired.rowCount === 0) {
            const { rows } = await client.query<{ status: string }>(
              "select status from cairn_search.vector_generations where generation = $1",
              [from],
            );
            return rows[0]?.status === "active" ? "behind" : "moved";
          }
        } else if ((await store.activeGeneration()) !== null) {
          return "moved";
        }
        const activated = await client.query(
          `update cairn_search.vector_generations
              set status = 'active', builder = null, activated_at = now()
            where generation = $1 and status = 'building' and builder = $2 and checkpoint >= $3`,
          [to, token, checkpoint],
        );
        if (activated.rowCount === 0)
          throw new Error(`generation ${to} is behind ${checkpoint} or not ours to switch`);
        await client.query("delete from cairn_search.pauses where projection = $1 and token = $2", [
          pauseProjection,
          token,
        ]);
        return "ok";
      });
    },
    async dropGeneration(generation) {
      const g = await store.generation(generation);
      if (!g) return;
      await withTransaction(async (client) => {
        await client.query(`drop table if exists ${table(g)}`);
        await client.query("delete from cairn_search.vector_generations where generation = $1", [generation]);
      });
    },
    async search(g, vector, filter, limit) {
      // Iterative scans (pgvector 0.8) keep walking the HNSW graph until `limit` rows pass the
      // filters; relaxed order is re-sorted by the outer query.
      const { rows } = await pool.query<{ memory_id: string; distance: number; document: unknown }>(
        `with hits as materialized (
           select memory_id::text, document, embedding <=> $1::vector as distance
             from ${table(g)}
            where ${filter.sql}
            order by embedding <=> $1::vector
            limit ${Math.max(1, Math.floor(limit))}
         )
         select memory_id, distance, document from hits order by distance, memory_id`,
        [pgvector.toSql(vector), ...filter.params],
      );
      return rows
        .filter((r) => r.distance !== null && Number.isFinite(Number(r.distance)))
        .map((r) => ({
          id: r.memory_id,
          score: 1 - Number(r.distance),
          document: MemoryDocumentSchema.parse(r.document),
        }));
    },
    async embeddingOf(g, id) {
      const { rows } = await pool.query<{ embedding: string }>(
        `select embedding::text from ${table(g)} where memory_id = $1`,
        [id],
      );
      return rows[0] ? (pgvector.fromSql(rows[0].embedding) as number[]) : null;
    },
  };

  async function insertGeneration(
    client: pg.PoolClient,
    model: string,
    dimensions: number,
    status: "building" | "active",
    builder: string | null,
  ): Promise<VectorGeneration> {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 16_000) {
      throw new Error(`invalid embedding dimension ${dimensions}`);
    }
    const { rows } = await client.query<GenerationRow>(
      `insert into cairn_search.vector_generations (table_name, model, dimensions, status, builder)
       values ('pending-' || gen_random_uuid(), $1, $2, $3, $4)
       returning ${generationColumns}`,
      [model, dimensions, status, builder],
    );
    const row = rows[0] as GenerationRow;
    const tableName = `vectors_g${row.generation}`;
    await client.query("update cairn_search.vector_generations set table_name = $2 where generation = $1", [
      row.generation,
      tableName,
    ]);
    const g = { ...toGeneration(row), tableName };
    await client.query(`
      create table ${table(g)} (
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
    await client.query(`create index ${tableName}_visibility on ${table(g)} (tenant, tier, status)`);
    await client.query(
      `create index ${tableName}_global on ${table(g)} (tier, status) where scope = 'global'`,
    );
    return g;
  }

  async function upsertRows(client: pg.PoolClient, g: VectorGeneration, upserts: readonly VectorUpsert[]) {
    const docs = upserts.map((u) => u.document);
    await client.query(
      `insert into ${table(g)} as t (memory_id, tenant, scope, agent, tier, status, kind, project, tags,
         created_at, updated_at, invalid_at, version, document, text_hash, embedding)
       select u.memory_id, u.tenant, u.scope, u.agent, u.tier, u.status, u.kind, u.project,
              array(select jsonb_array_elements_text(u.tags)), u.created_at, u.updated_at, u.invalid_at,
              u.version, u.document, u.text_hash, coalesce(u.embedding::vector, old.embedding)
         from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                     $8::text[], $9::jsonb[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[],
                     $13::int[], $14::jsonb[], $15::text[], $16::text[])
              as u(memory_id, tenant, scope, agent, tier, status, kind, project, tags, created_at,
                   updated_at, invalid_at, version, document, text_hash, embedding)
         left join ${table(g)} old on old.memory_id = u.memory_id
       on conflict (memory_id) do update set
         tenant = excluded.tenant, scope = excluded.scope, agent = excluded.agent, tier = excluded.tier,
         status = excluded.status, kind = excluded.kind, project = excluded.project, tags = excluded.tags,
         created_at = excluded.created_at, updated_at = excluded.updated_at,
         invalid_at = excluded.invalid_at, version = excluded.version, document = excluded.document,
         text_hash = excluded.text_hash, embedding = excluded.embedding`,
      [
        docs.map((d) => d.id),
        docs.map((d) => d.tenant),
        docs.map((d) => d.scope),
        docs.map((d) => d.agent),
        docs.map((d) => d.tier),
        docs.map((d) => d.status),
        docs.map((d) => d.kind),
        docs.map((d) => (d.project === null ? null : normalizeTag(d.project))),
        docs.map((d) => JSON.stringify([...new Set(d.tags.map(normalizeTag).filter((t) => t !== ""))])),
        docs.map((d) => d.createdAt),
        docs.map((d) => d.updatedAt),
        docs.map((d) => d.invalidAt),
        docs.map((d) => d.version),
        docs.map((d) => JSON.stringify(d)),
        upserts.map((u) => u.textHash),
        upserts.map((u) => (u.embedding === null ? null : pgvector.toSql(u.embedding))),
      ],
    );
  }

  return store;
}

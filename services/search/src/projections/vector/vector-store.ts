// The rows of the vector read model: one per memory in the generation's table, with the
// filter columns of its document and the embedding, and beside it (`<table>_documents`, or in
// the row for a generation from before) the document and the hash of the text it was embedded
// from. Generations (which table serves, checkpoints) are `vector-generations.ts`.
import { createHash } from "node:crypto";
import type { MemoryDocument } from "@cairn/contracts";
import { MemoryDocumentSchema } from "@cairn/contracts";
import { type ProjectionSnapshot, snapshotRows } from "@cairn/projection-runtime";
import type pg from "pg";
import pgvector from "pgvector";
import { type EpisodePlace, episodePlace } from "../lexical/lexical-index.ts";
import { normalizeTag } from "../lexical/query-syntax.ts";
import { forgetVectorOid, vectorArrayBinary, vectorBinary, vectorOid } from "./vector-binary.ts";
import {
  audienceOf,
  type VectorGeneration,
  vectorDocumentsTable,
  vectorRowsWithDocuments,
  vectorTable,
} from "./vector-generations.ts";

type NearestRow = {
  memory_id: string;
  episode: string | null;
  episode_order: number | null;
  distance: number;
};

/** A row with a distance (a zero vector has none). */
function hasDistance(row: NearestRow): boolean {
  return row.distance !== null && Number.isFinite(Number(row.distance));
}

/** Nearest first; ties by memory id (as the query orders each part). */
function byDistance(a: NearestRow, b: NearestRow): number {
  const d = Number(a.distance) - Number(b.distance);
  return d || (a.memory_id < b.memory_id ? -1 : a.memory_id > b.memory_id ? 1 : 0);
}

/**
 * The name a nearest-neighbour query is prepared by on a connection: each connection parses
 * one text once (a text per generation and set of filters), not at every search (a quarter
 * of a millisecond of Postgres's time on a recall's path). Each search is still planned for its
 * own values: the tenant's partition is pruned at planning.
 */
function statementName(sql: string): string {
  return `cairn-knn-${createHash("sha256").update(sql).digest("base64url").slice(0, 24)}`;
}

/** A document to write; `embedding: null` keeps the stored vector (its text did not change). */
export type VectorUpsert = { document: MemoryDocument; textHash: string; embedding: number[] | null };

/**
 * A nearest memory: its id, cosine similarity and place in its episode (the document is read
 * by whoever needs it).
 */
export type VectorHit = { id: string; score: number; place: EpisodePlace | null };

/** A WHERE clause over the filter columns, its parameters numbered from `$2` ($1 is the query vector). */
export type VectorWhere = { sql: string; params: unknown[] };

/** `sql` for all the principal may see, `own` and `global` for its two parts. */
export type VectorFilter = VectorWhere & { own: VectorWhere; global: VectorWhere };

export type VectorRows = {
  loadRows(
    generation: VectorGeneration,
    ids: readonly string[],
  ): Promise<Map<string, { document: MemoryDocument; textHash: string }>>;
  upsertRows(
    client: pg.PoolClient,
    generation: VectorGeneration,
    upserts: readonly VectorUpsert[],
  ): Promise<void>;
  search(
    generation: VectorGeneration,
    vector: number[],
    filter: VectorFilter,
    limit: number,
  ): Promise<VectorHit[]>;
  /** The stored embedding of a memory (tests and diagnostics). */
  embeddingOf(generation: VectorGeneration, id: string): Promise<number[] | null>;
  /** Every row of a generation, by memory id (the embedding as pgvector's text). */
  snapshot(generation: VectorGeneration): Promise<ProjectionSnapshot>;
};

export function createVectorRows(options: { pool: pg.Pool }): VectorRows {
  const { pool } = options;
  return {
    async loadRows(g, ids) {
      const out = new Map<string, { document: MemoryDocument; textHash: string }>();
      if (ids.length === 0) return out;
      // Documents apart: a memory has a row when it has both (the walk reads the one, the
      // projection the other).
      const { rows } = await pool.query<{ memory_id: string; document: unknown; text_hash: string }>(
        `select memory_id::text, document, text_hash from ${vectorRowsWithDocuments(g)} where memory_id = any($1::uuid[])`,
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
    async upsertRows(client, g, upserts) {
      try {
        await upsertRows(client, g, upserts, await vectorOid(pool));
      } catch (error) {
        // 42804: the array's element type is not `vector` any more (the extension was created
        // again); the oid is looked up again when the batch is retried.
        if ((error as { code?: string }).code === "42804") forgetVectorOid(pool);
        throw error;
      }
    },
    async search(g, vector, filter, limit) {
      // Iterative scans (pgvector 0.8) keep walking the HNSW graph until `limit` rows pass the
      // filters; relaxed order is re-sorted by the outer query. Partitioned by audience, the
      // tenant's memories and the global ones are two nearest-neighbour queries, each over one
      // partition, asked at once on two connections and merged here: one after the other in
      // one statement, a recall waited for both walks.
      const n = Math.max(1, Math.floor(limit));
      const table = vectorTable(g);
      const audience = g.layout === "audience";
      // A table from before the audience layout keeps the episode only in the document.
      const place = audience
        ? "episode, episode_order"
        : `document->'episode'->>'id' as episode,
           coalesce((document->'episode'->>'order')::float8, extract(epoch from created_at)::float8 * 1000) as episode_order`;
      // The query's embedding travels in single precision and is rounded as the rows were.
      const query = g.embeddingType === "halfvec" ? "$1::vector::halfvec" : "$1::vector";
      const embedding = vectorBinary(vector);
      const nearest = async (where: VectorWhere) => {
        const sql = `with hits as materialized (
            select memory_id, ${place}, embedding <=> ${query} as distance from ${table}
             where ${where.sql} order by embedding <=> ${query} limit ${n})
          select memory_id::text, episode, episode_order, distance from hits order by distance, memory_id`;
        const { rows } = await pool.query<NearestRow>({
          name: statementName(sql),
          text: sql,
          values: [embedding, ...where.params],
        });
        return rows;
      };
      const rows = audience
        ? (await Promise.all([nearest(filter.own), nearest(filter.global)]))
            .flat()
            .filter(hasDistance)
            .sort(byDistance)
            .slice(0, n)
        : (await nearest(filter)).filter(hasDistance);
      return rows.map((r) => ({
        id: r.memory_id,
        score: 1 - Number(r.distance),
        place: r.episode === null ? null : { id: r.episode, order: Number(r.episode_order) },
      }));
    },
    async snapshot(g) {
      const { rows } = await pool.query<Record<string, unknown>>(
        `select memory_id::text, tenant, scope, agent, tier, status, kind, project, tags, created_at, updated_at,
                invalid_at, version, document, text_hash, embedding::text
           from ${vectorRowsWithDocuments(g)}`,
      );
      return snapshotRows(rows, (row) => String(row.memory_id));
    },
    async embeddingOf(g, id) {
      const { rows } = await pool.query<{ embedding: string }>(
        `select embedding::text from ${vectorTable(g)} where memory_id = $1`,
        [id],
      );
      return rows[0] ? (pgvector.fromSql(rows[0].embedding) as number[]) : null;
    },
  };
}

async function upsertRows(
  client: pg.PoolClient,
  g: VectorGeneration,
  upserts: readonly VectorUpsert[],
  oid: number,
) {
  const docs = upserts.map((u) => u.document);
  // A memory's audience never changes (its tenant and scope are set when it is written), so
  // (audience, id) finds the row a newer version replaces. A version whose text is unchanged
  // comes without an embedding and keeps the row's: looked up by key for that row only (a
  // join with the table would scan and sort every partition, as the audiences are not known
  // when the statement is planned, so each batch would cost as much as the table is large).
  const audience = g.layout === "audience";
  const apart = g.documents === "apart";
  const place = audience ? "audience, episode, episode_order, " : "";
  const filters =
    "memory_id, tenant, scope, agent, tier, status, kind, project, tags, created_at, updated_at, invalid_at, version";
  const rows = `select ${audience ? "u.audience, u.episode, u.episode_order, " : ""}u.memory_id, u.tenant, u.scope, u.agent, u.tier,
            u.status, u.kind, u.project, array(select jsonb_array_elements_text(u.tags)) as tags, u.created_at,
            u.updated_at, u.invalid_at, u.version, d.document, u.text_hash,
            coalesce(u.embedding${g.embeddingType === "halfvec" ? "::halfvec" : ""}, (select old.embedding from ${vectorTable(g)} old
                                            where old.memory_id = u.memory_id${audience ? " and old.audience = u.audience" : ""})) as embedding
       from unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
                   $8::text[], $9::jsonb[], $10::timestamptz[], $11::timestamptz[], $12::timestamptz[],
                   $13::int[], $15::text[], $16::vector[], $17::text[], $18::text[], $19::float8[])
            with ordinality
            as u(memory_id, tenant, scope, agent, tier, status, kind, project, tags, created_at,
                 updated_at, invalid_at, version, text_hash, embedding, audience, episode,
                 episode_order, n)
       join jsonb_array_elements($14::jsonb) with ordinality as d(document, n) on d.n = u.n`;
  const update = `tenant = excluded.tenant, scope = excluded.scope, agent = excluded.agent, tier = excluded.tier,
       status = excluded.status, kind = excluded.kind, project = excluded.project, tags = excluded.tags,
       created_at = excluded.created_at, updated_at = excluded.updated_at,
       invalid_at = excluded.invalid_at, version = excluded.version, embedding = excluded.embedding${
         audience ? ", episode = excluded.episode, episode_order = excluded.episode_order" : ""
       }`;
  const conflict = `on conflict (${audience ? "audience, " : ""}memory_id) do update set`;
  // Documents apart: one statement writes both tables, the rows read once.
  await client.query(
    apart
      ? `with rows as materialized (${rows}),
          documents as (
            insert into ${vectorDocumentsTable(g)} (memory_id, document, text_hash)
            select memory_id, document, text_hash from rows
            on conflict (memory_id) do update set document = excluded.document, text_hash = excluded.text_hash)
         insert into ${vectorTable(g)} as t (${place}${filters}, embedding)
         select ${place}${filters}, embedding from rows
         ${conflict} ${update}`
      : `insert into ${vectorTable(g)} as t (${place}${filters}, document, text_hash, embedding)
         ${rows}
         ${conflict} ${update}, document = excluded.document, text_hash = excluded.text_hash`,
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
      // One JSON array: as an array of texts, each document would be escaped character by
      // character on its way out.
      JSON.stringify(docs),
      upserts.map((u) => u.textHash),
      vectorArrayBinary(
        upserts.map((u) => u.embedding),
        oid,
      ),
      docs.map(audienceOf),
      docs.map((d) => episodePlace(d)?.id ?? null),
      docs.map((d) => episodePlace(d)?.order ?? null),
    ],
  );
}

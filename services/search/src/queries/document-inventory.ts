// `cairn.search.inventory`: what a read model holds, for maintenance's doctor: per document
// its id, tenant, lifecycle, version and whether it holds text, never the text itself. A page
// at a time over the active generation, or only the ids asked about.
import type {
  InventoryDocument,
  InventoryReply,
  InventoryRequestSchema,
  MemoryDocument,
} from "@cairn/contracts";
import type { Redis } from "ioredis";
import type pg from "pg";
import type { z } from "zod";
import type { LexicalStore } from "../projections/lexical/lexical-store.ts";
import { vectorRowsWithDocuments } from "../projections/vector/vector-generations.ts";
import type { VectorProjection } from "../projections/vector/vector-projection.ts";

export type InventorySources = {
  lexical: LexicalStore;
  redis: Redis;
  vector: VectorProjection;
  pool: pg.Pool;
};

function describe(doc: MemoryDocument): InventoryDocument {
  return {
    id: doc.id,
    tenant: doc.tenant,
    tier: doc.tier,
    status: doc.status,
    version: doc.version,
    hasText: doc.content !== "" || doc.title !== "" || doc.entities.length > 0,
    purged: Boolean(doc.purgedAt),
  };
}

async function lexicalInventory(
  store: LexicalStore,
  redis: Redis,
  request: z.infer<typeof InventoryRequestSchema>,
): Promise<InventoryReply> {
  const g = await store.activeGeneration();
  if (g === null)
    return { projection: "lexical", generation: 0, position: 0, documents: [], nextCursor: null };
  const position = await store.checkpoint(g);
  const keep = (d: MemoryDocument) => request.tenant === undefined || d.tenant === request.tenant;
  if (request.ids) {
    const docs = await store.loadDocuments(g, request.ids);
    return {
      projection: "lexical",
      generation: g,
      position,
      documents: [...docs.values()].filter(keep).map(describe),
      nextCursor: null,
    };
  }
  // SCAN pages over the generation's document keys (a key may come twice; ids are unique below).
  const prefix = store.docKey(g, "");
  const ids: string[] = [];
  let cursor = request.cursor ?? "0";
  do {
    const [next, keys] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", request.limit - ids.length);
    cursor = next;
    for (const key of keys) ids.push(key.slice(prefix.length));
  } while (cursor !== "0" && ids.length < request.limit);
  const docs = await store.loadDocuments(g, [...new Set(ids)]);
  return {
    projection: "lexical",
    generation: g,
    position,
    documents: [...docs.values()].filter(keep).map(describe),
    nextCursor: cursor === "0" ? null : cursor,
  };
}

type InventoryRow = {
  id: string;
  tenant: string;
  tier: InventoryDocument["tier"];
  status: InventoryDocument["status"];
  version: number;
  has_text: boolean;
  purged: boolean;
};

async function vectorInventory(
  vector: VectorProjection,
  pool: pg.Pool,
  request: z.infer<typeof InventoryRequestSchema>,
): Promise<InventoryReply> {
  if ((await vector.generations.active()) === null) {
    return { projection: "vector", generation: 0, position: 0, documents: [], nextCursor: null };
  }
  const g = await vector.servingGeneration();
  const where: string[] = [];
  const params: unknown[] = [];
  if (request.tenant !== undefined) {
    params.push(request.tenant);
    where.push(`tenant = $${params.length}`);
  }
  if (request.ids) {
    params.push(request.ids);
    where.push(`memory_id = any($${params.length}::uuid[])`);
  } else if (request.cursor) {
    params.push(request.cursor);
    where.push(`memory_id > $${params.length}::uuid`);
  }
  params.push(request.ids ? request.ids.length : request.limit);
  const { rows } = await pool.query<InventoryRow>(
    `select memory_id::text as id, tenant, tier, status, version,
            coalesce(document->>'content', '') <> '' or coalesce(document->>'title', '') <> ''
              or jsonb_array_length(coalesce(document->'entities', '[]'::jsonb)) > 0 as has_text,
            coalesce(document->>'purgedAt', '') <> '' as purged
       from ${vectorRowsWithDocuments(g, "left")}
      ${where.length > 0 ? `where ${where.join(" and ")}` : ""}
      order by memory_id limit $${params.length}`,
    params,
  );
  const documents = rows.map((r) => ({
    id: r.id,
    tenant: r.tenant,
    tier: r.tier,
    status: r.status,
    version: r.version,
    hasText: r.has_text,
    purged: r.purged,
  }));
  return {
    projection: "vector",
    generation: g.generation,
    position: g.checkpoint,
    documents,
    nextCursor: !request.ids && rows.length === request.limit ? (rows.at(-1)?.id ?? null) : null,
  };
}

export function documentInventory(
  sources: InventorySources,
  request: z.infer<typeof InventoryRequestSchema>,
): Promise<InventoryReply> {
  return request.projection === "lexical"
    ? lexicalInventory(sources.lexical, sources.redis, request)
    : vectorInventory(sources.vector, sources.pool, request);
}

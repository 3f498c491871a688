// Embeddings sent to Postgres in pgvector's binary format rather than as text: a vector of 384
// numbers is about 7 KB of decimal text that JavaScript prints and Postgres parses back, and
// 1.5 KB of floats in binary. node-postgres sends a Buffer parameter in binary; Postgres reads
// it with the receive function of the type the statement gives the parameter (`$1::vector`,
// `$2::vector[]`).
//
// pgvector's `vector_recv`: int16 dimensions, int16 unused (0), then each value as a float4,
// big-endian. An array (`array_recv`): int32 dimensions of the array (1), int32 "has nulls",
// the element type's oid, int32 length and int32 lower bound (1), then each element as an
// int32 byte length (-1 for null) and its bytes. The oid of `vector` is the extension's own,
// different in every database, so it is looked up once per pool.
import type pg from "pg";

/** One vector, for a parameter cast to `vector`. */
export function vectorBinary(vector: readonly number[]): Buffer {
  const out = Buffer.allocUnsafe(4 + 4 * vector.length);
  writeVector(out, 0, vector);
  return out;
}

function writeVector(out: Buffer, at: number, vector: readonly number[]): number {
  out.writeInt16BE(vector.length, at);
  out.writeInt16BE(0, at + 2);
  let offset = at + 4;
  for (const value of vector) {
    out.writeFloatBE(value, offset);
    offset += 4;
  }
  return offset;
}

/** Vectors (null for none), for a parameter cast to `vector[]`. */
export function vectorArrayBinary(vectors: readonly (readonly number[] | null)[], vectorOid: number): Buffer {
  let size = 20;
  let nulls = 0;
  for (const v of vectors) {
    size += 4 + (v === null ? 0 : 4 + 4 * v.length);
    if (v === null) nulls += 1;
  }
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(1, 0);
  out.writeInt32BE(nulls > 0 ? 1 : 0, 4);
  out.writeUInt32BE(vectorOid, 8);
  out.writeInt32BE(vectors.length, 12);
  out.writeInt32BE(1, 16);
  let offset = 20;
  for (const v of vectors) {
    if (v === null) {
      out.writeInt32BE(-1, offset);
      offset += 4;
      continue;
    }
    out.writeInt32BE(4 + 4 * v.length, offset);
    offset = writeVector(out, offset + 4, v);
  }
  return out;
}

const oids = new WeakMap<pg.Pool, Promise<number>>();

/** The oid of pgvector's `vector` type in the pool's database. */
export function vectorOid(pool: pg.Pool): Promise<number> {
  let oid = oids.get(pool);
  if (!oid) {
    oid = pool.query<{ oid: number }>("select 'vector'::regtype::oid::int8 as oid").then((r) => {
      const value = Number(r.rows[0]?.oid);
      if (!Number.isInteger(value) || value <= 0) throw new Error("the vector type has no oid");
      return value;
    });
    // A failed lookup (Postgres down) is asked again next time.
    oid.catch(() => oids.delete(pool));
    oids.set(pool, oid);
  }
  return oid;
}

/** Forgets the oid (the extension was created again, so its type has a new one). */
export function forgetVectorOid(pool: pg.Pool): void {
  oids.delete(pool);
}

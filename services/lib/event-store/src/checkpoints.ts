import type pg from "pg";

/** The position a named reader (the relay, a projection) has fully handled; 0 before its first. */
export async function readCheckpoint(db: pg.Pool | pg.ClientBase, name: string): Promise<number> {
  const { rows } = await db.query<{ position: string }>(
    "select position from cairn_checkpoints where name = $1",
    [name],
  );
  return rows[0] ? Number(rows[0].position) : 0;
}

/** Moves a checkpoint forward (never back: a stale writer cannot rewind it). */
export async function storeCheckpoint(
  db: pg.Pool | pg.ClientBase,
  name: string,
  position: number,
): Promise<void> {
  await db.query(
    `insert into cairn_checkpoints (name, position) values ($1, $2)
     on conflict (name) do update set position = greatest(cairn_checkpoints.position, excluded.position),
       updated_at = now()`,
    [name, position],
  );
}

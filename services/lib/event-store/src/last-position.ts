import type pg from "pg";

/** The highest position `readAll` can reach now (0 for an empty log). */
export async function lastPosition(db: pg.Pool | pg.ClientBase): Promise<number> {
  const { rows } = await db.query<{ position: string }>(
    `select position from cairn_events
      where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by transaction_id desc, position desc
      limit 1`,
  );
  return rows[0] ? Number(rows[0].position) : 0;
}

/**
 * The highest committed position, whether `readAll` can reach it yet or not (0 for an empty
 * log): what a reader has to reach to have seen everything committed before it asked.
 */
export async function lastCommittedPosition(db: pg.Pool | pg.ClientBase): Promise<number> {
  const { rows } = await db.query<{ max: string | null }>("select max(position) as max from cairn_events");
  return Number(rows[0]?.max ?? 0);
}

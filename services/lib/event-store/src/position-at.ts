import type pg from "pg";

/**
 * The last position committed at or before `time` (0 when the log had nothing then): what a
 * read "as of" a time reads up to. Commit order is position order below the readers' horizon,
 * so every event at or below it was there at that time.
 */
export async function positionAt(db: pg.Pool | pg.ClientBase, time: string): Promise<number> {
  const { rows } = await db.query<{ position: string | null }>(
    "select max(position) as position from cairn_events where recorded_at <= $1::timestamptz",
    [time],
  );
  return Number(rows[0]?.position ?? 0);
}

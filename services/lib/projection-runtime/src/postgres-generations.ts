// Generations of a read model kept in Postgres: one row per generation in
// `cairn_projections.generations` (status, builder, checkpoint, and what the read model wants
// to remember of it, e.g. the embedding model of a vector table), and a row in
// `cairn_projections.pauses` while a rebuild switches. A write to a generation is one
// transaction that starts with the compare-and-set of its checkpoint: it locks the row, so
// concurrent writers of one generation queue there and all but the first find it moved.
import type { ProjectionName } from "@cairn/contracts";
import type pg from "pg";
import type { ApplyOutcome, Generations, ProjectionWriter } from "./projection.ts";

export type GenerationMeta = Record<string, unknown>;

export type PostgresGeneration = {
  generation: number;
  status: "building" | "active" | "retired";
  builder: string | null;
  checkpoint: number;
  meta: GenerationMeta;
  prepared: boolean;
};

export type PostgresGenerationHooks = {
  /** The projection's version, recorded in the meta of every generation it creates. */
  version?: string | undefined;
  /** What a new generation remembers (e.g. the embedding model and dimension). */
  metaForNew?(): Promise<GenerationMeta>;
  /** Creates the generation's storage in the transaction that inserts its row; may add to its meta. */
  createData?(
    client: pg.PoolClient,
    generation: number,
    meta: GenerationMeta,
  ): Promise<GenerationMeta | undefined>;
  dropData?(client: pg.PoolClient, generation: PostgresGeneration): Promise<void>;
  /** Work before a built generation serves (an index built after the bulk load); it is then `prepared`. */
  prepareToServe?(generation: PostgresGeneration, db: pg.Pool | pg.PoolClient): Promise<void>;
  /** Whether an interrupted rebuild's generation can be continued (e.g. same embedding model). */
  resumable?(generation: PostgresGeneration): boolean;
  /** Whether the first generation is prepared when created (an index from the start). */
  preparedFromStart?: boolean;
};

export type PostgresGenerations = Generations & {
  generation(generation: number): Promise<PostgresGeneration | null>;
  activeGeneration(): Promise<PostgresGeneration | null>;
  /** Runs `write` in a transaction that moves the checkpoint from `expected` to `next` first. */
  commit(
    generation: number,
    writer: ProjectionWriter,
    expected: number,
    next: number,
    write: (client: pg.PoolClient) => Promise<void>,
  ): Promise<ApplyOutcome>;
  withTransaction<T>(fn: (client: pg.PoolClient) => Promise<T>): Promise<T>;
  isPaused(): Promise<boolean>;
};

type Row = {
  generation: number;
  status: PostgresGeneration["status"];
  builder: string | null;
  checkpoint: string;
  meta: GenerationMeta;
  prepared: boolean;
};

const columns = "generation, status, builder, checkpoint, meta, prepared";

function toGeneration(row: Row): PostgresGeneration {
  return {
    generation: row.generation,
    status: row.status,
    builder: row.builder,
    checkpoint: Number(row.checkpoint),
    meta: row.meta,
    prepared: row.prepared,
  };
}

export function createPostgresGenerations(
  pool: pg.Pool,
  projection: ProjectionName,
  hooks: PostgresGenerationHooks = {},
): PostgresGenerations {
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

  async function select(where: string, params: unknown[]): Promise<PostgresGeneration[]> {
    const { rows } = await pool.query<Row>(
      `select ${columns} from cairn_projections.generations where projection = $1 and ${where} order by generation`,
      [projection, ...params],
    );
    return rows.map(toGeneration);
  }

  async function insert(
    client: pg.PoolClient,
    status: "building" | "active",
    builder: string | null,
  ): Promise<PostgresGeneration> {
    const meta = {
      ...((await hooks.metaForNew?.()) ?? {}),
      ...(hooks.version === undefined ? {} : { version: hooks.version }),
    };
    const { rows } = await client.query<Row>(
      `insert into cairn_projections.generations (projection, status, builder, meta)
       values ($1, $2, $3, $4) returning ${columns}`,
      [projection, status, builder, JSON.stringify(meta)],
    );
    const row = toGeneration(rows[0] as Row);
    const more = await hooks.createData?.(client, row.generation, meta);
    if (more) {
      row.meta = { ...meta, ...more };
      await client.query("update cairn_projections.generations set meta = $2 where generation = $1", [
        row.generation,
        JSON.stringify(row.meta),
      ]);
    }
    return row;
  }

  const generations: PostgresGenerations = {
    withTransaction,
    async generation(g) {
      return (await select("generation = $2", [g]))[0] ?? null;
    },
    async activeGeneration() {
      return (await select("status = 'active'", []))[0] ?? null;
    },
    async active() {
      return (await generations.activeGeneration())?.generation ?? null;
    },
    async live() {
      const active = await generations.active();
      if (active !== null) return active;
      try {
        return await withTransaction(async (client) => {
          const created = await insert(client, "active", null);
          if (hooks.preparedFromStart) {
            await hooks.prepareToServe?.(created, client);
          }
          await client.query(
            "update cairn_projections.generations set activated_at = now(), prepared = $2 where generation = $1",
            [created.generation, hooks.preparedFromStart === true],
          );
          return created.generation;
        });
      } catch (error) {
        // Another copy created the first generation at the same moment (one active at a time).
        if ((error as { code?: string }).code === "23505") return (await generations.active()) as number;
        throw error;
      }
    },
    async checkpoint(g) {
      return (await generations.generation(g))?.checkpoint ?? 0;
    },
    async version(g) {
      const version = (await generations.generation(g))?.meta.version;
      return typeof version === "string" ? version : null;
    },
    async create(token) {
      return withTransaction(async (client) => (await insert(client, "building", token)).generation);
    },
    async resumable() {
      return (await select("status = 'building'", []))
        .filter((g) => hooks.resumable?.(g) ?? true)
        .map((g) => ({ generation: g.generation, checkpoint: g.checkpoint }));
    },
    async leftovers() {
      return (await select("status = 'retired'", [])).map((g) => g.generation);
    },
    async claim(g, token) {
      await pool.query("update cairn_projections.generations set builder = $2 where generation = $1", [
        g,
        token,
      ]);
    },
    async prepareToServe(g) {
      const generation = await generations.generation(g);
      if (!generation || generation.prepared) return;
      await hooks.prepareToServe?.(generation, pool);
      await pool.query("update cairn_projections.generations set prepared = true where generation = $1", [g]);
    },
    async pause(token, ttlMs) {
      await pool.query(
        `insert into cairn_projections.pauses (projection, token, until)
         values ($1, $2, now() + $3 * interval '1 millisecond')
         on conflict (projection) do update set token = excluded.token, until = excluded.until`,
        [projection, token, ttlMs],
      );
    },
    async resume(token) {
      await pool.query("delete from cairn_projections.pauses where projection = $1 and token = $2", [
        projection,
        token,
      ]);
    },
    async isPaused() {
      const { rows } = await pool.query(
        "select 1 from cairn_projections.pauses where projection = $1 and until > now()",
        [projection],
      );
      return rows.length > 0;
    },
    async switchActive(from, to, checkpoint, token) {
      return withTransaction(async (client) => {
        if (from !== null) {
          const retired = await client.query(
            `update cairn_projections.generations set status = 'retired'
              where generation = $1 and status = 'active' and checkpoint = $2`,
            [from, checkpoint],
          );
          if (retired.rowCount === 0) {
            const { rows } = await client.query<{ status: string }>(
              "select status from cairn_projections.generations where generation = $1",
              [from],
            );
            return rows[0]?.status === "active" ? "behind" : "moved";
          }
        } else if ((await generations.active()) !== null) {
          return "moved";
        }
        const activated = await client.query(
          `update cairn_projections.generations
              set status = 'active', builder = null, activated_at = now()
            where generation = $1 and status = 'building' and builder = $2 and checkpoint >= $3`,
          [to, token, checkpoint],
        );
        if (activated.rowCount === 0)
          throw new Error(`generation ${to} is behind ${checkpoint} or not ours to switch`);
        await client.query("delete from cairn_projections.pauses where projection = $1 and token = $2", [
          projection,
          token,
        ]);
        return "ok";
      });
    },
    async drop(g) {
      const generation = await generations.generation(g);
      if (!generation) return;
      await withTransaction(async (client) => {
        await hooks.dropData?.(client, generation);
        await client.query("delete from cairn_projections.generations where generation = $1", [g]);
      });
    },
    async commit(g, writer, expected, next, write) {
      return withTransaction(async (client) => {
        // A rebuild sends a batch while the one before still writes (`onSent`): the row is
        // locked first, which waits for that write to commit, so that the compare-and-set below
        // reads the checkpoint it left. (The update alone would compare with the last committed
        // checkpoint and miss, without waiting.)
        if (writer.kind === "builder" && writer.onSent) {
          await client.query("select 1 from cairn_projections.generations where generation = $1 for update", [
            g,
          ]);
        }
        const owner =
          writer.kind === "live"
            ? `status = 'active' and not exists (select 1 from cairn_projections.pauses p where p.projection = $4 and p.until > now())`
            : "status = 'building' and builder = $4";
        const moved = await client.query(
          `update cairn_projections.generations set checkpoint = $3
            where generation = $1 and checkpoint = $2 and ${owner}`,
          [g, expected, next, writer.kind === "live" ? projection : writer.token],
        );
        if (moved.rowCount === 0) {
          const { rows } = await client.query<{ status: string; builder: string | null; checkpoint: string }>(
            "select status, builder, checkpoint from cairn_projections.generations where generation = $1",
            [g],
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
        // The checkpoint is this write's until it commits: the next batch's compare-and-set
        // waits for it, so a rebuild may go on to read and fold that batch now.
        if (writer.kind === "builder") writer.onSent?.();
        await write(client);
        return "ok";
      });
    },
  };
  return generations;
}

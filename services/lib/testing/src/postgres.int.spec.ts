import pg from "pg";
import { describe, expect, test } from "vitest";
import { infraTest } from "./infra-test.ts";
import { startPostgres } from "./postgres.ts";

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe("startPostgres", () => {
  infraTest(
    "answers queries in a fresh database with pgvector available",
    async ({ databaseUrl, databaseName }) => {
      expect(databaseUrl).toContain(`/${databaseName}`);
      expect(await query<{ one: number }>(databaseUrl, "select 1 as one")).toEqual([{ one: 1 }]);
      await query(databaseUrl, "create extension vector");
      const [row] = await query<{ distance: number }>(
        databaseUrl,
        "select '[1,2,3]'::vector <-> '[1,2,5]'::vector as distance",
      );
      expect(row?.distance).toBe(2);
    },
  );

  infraTest("gives each test its own database", async ({ postgres, databaseName }) => {
    const databases = await query<{ datname: string }>(postgres.url(), "select datname from pg_database");
    expect(databases.map((d) => d.datname)).toContain(databaseName);
    // The vector extension created by the previous test lives in another database.
    expect(
      await query(postgres.url(databaseName), "select * from pg_extension where extname = 'vector'"),
    ).toEqual([]);
  });

  describe.concurrent("tests running at the same time", () => {
    for (const n of [1, 2, 3]) {
      infraTest(`each get a database of their own (${n})`, async ({ databaseUrl }) => {
        await query(databaseUrl, `create table only_mine (n int); insert into only_mine values (${n})`);
        expect(await query(databaseUrl, "select n from only_mine")).toEqual([{ n }]);
      });
    }
  });

  test("keeps committed rows across kill -9 and restart on the same port", async () => {
    await using postgres = await startPostgres();
    const url = await postgres.createDatabase("crash");
    await query(url, "create table facts (id int primary key); insert into facts values (1), (2)");
    const portBefore = postgres.port;
    const pidBefore = postgres.pid;

    await postgres.kill();
    expect(postgres.pid).toBeUndefined();
    await expect(query(url, "select 1")).rejects.toThrow();

    await postgres.restart();
    expect(postgres.port).toBe(portBefore);
    expect(postgres.pid).not.toBe(pidBefore);
    expect(await query<{ id: number }>(url, "select id from facts order by id")).toEqual([
      { id: 1 },
      { id: 2 },
    ]);
  });

  test("a pool reconnects with new connections after a restart", async () => {
    await using postgres = await startPostgres();
    const pool = new pg.Pool({ connectionString: postgres.url() });
    pool.on("error", () => {}); // idle clients die with the server
    try {
      expect((await pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
      await postgres.kill();
      await postgres.restart();
      // The idle client of the pool was killed; the pool discards it and opens a new one.
      let rows: unknown[] = [];
      for (let attempt = 0; attempt < 3 && rows.length === 0; attempt += 1) {
        rows = await pool.query("select 1 as one").then(
          (r) => r.rows,
          () => [],
        );
      }
      expect(rows).toEqual([{ one: 1 }]);
    } finally {
      await pool.end();
    }
  });

  test("stop() removes the temp dir and kill()/stop() are idempotent", async () => {
    const { existsSync } = await import("node:fs");
    const postgres = await startPostgres();
    expect(existsSync(postgres.dataDir)).toBe(true);
    await postgres.kill();
    await postgres.kill();
    await postgres.stop();
    await postgres.stop();
    expect(existsSync(postgres.dir)).toBe(false);
  });
});

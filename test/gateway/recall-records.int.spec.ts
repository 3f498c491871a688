// The recall record every read leaves, through the gateway against the real ingest and
// search: a caller's recalls within the batch window reach the log as one commit, one
// `memories.recalled` event per read with the memories that read showed; a memory gone
// between the read and the record is left out and the rest recorded; stopping sends what
// was gathered.
import { randomUUID } from "node:crypto";
import { createCairnBackend, createRecallRecorder, teamKeys } from "@cairn/gateway/testing";
import { waitFor } from "@cairn/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HarnessSuite, startHarnessSuite } from "./gateway-stack.ts";

let suite: HarnessSuite;

beforeAll(async () => {
  // A long window, so that what goes together is decided by the window, not by timing.
  suite = await startHarnessSuite("gateway_recalls", { recallBatchMs: 1500 });
});

afterAll(async () => {
  await suite?.stop();
});

type Recalled = { memoryIds: string[]; agent: string; terms: string[]; tx: string };

/** The recall events in the log, oldest first, with the transaction that wrote each. */
async function recalled(): Promise<Recalled[]> {
  const { rows } = await suite.gw.pool.query<{ data: Omit<Recalled, "tx">; tx: string }>(
    "select data, transaction_id::text as tx from cairn_events where type = 'memories.recalled' order by position",
  );
  return rows.map((r) => ({ ...r.data, tx: r.tx }));
}

async function create(content: string): Promise<string> {
  const res = await suite.rest("alice", "POST", "/v1/memories", { slot: `recall/${randomUUID()}`, content });
  expect(res.status, await res.clone().text()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

async function searchIds(query: string): Promise<string[]> {
  const res = await suite.rest(
    "alice",
    "GET",
    `/v1/memories?q=${encodeURIComponent(query)}&consistency=strong`,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { results: { document: { id: string } }[] }).results.map(
    (r) => r.document.id,
  );
}

describe("recall records", () => {
  it("a caller's reads within the window reach the log as one commit, one event per read", async () => {
    const before = (await recalled()).length;
    const kiln = await create("The kiln in the east shed fires at 1200 degrees.");
    const glaze = await create("Celadon glaze needs a reduction atmosphere in the kiln.");
    const clay = await create("Porcelain clay is wedged for ten minutes before throwing.");

    const shown = [
      await searchIds("kiln"),
      await searchIds("celadon glaze"),
      await searchIds("porcelain clay"),
    ];
    expect(shown[0]).toEqual(expect.arrayContaining([kiln, glaze]));
    expect(shown[1]?.[0]).toBe(glaze);
    expect(shown[2]?.[0]).toBe(clay);

    const events = await waitFor(
      async () => {
        const all = (await recalled()).slice(before);
        expect(all).toHaveLength(3);
        return all;
      },
      { timeoutMs: 10_000, description: "the three recalls in the log" },
    );
    expect(events.map((e) => [...e.memoryIds].sort())).toEqual(shown.map((ids) => [...ids].sort()));
    expect(events.every((e) => e.agent === "alice")).toBe(true);
    expect(events[1]?.terms).toEqual(expect.arrayContaining(["celadon", "glaze"]));
    expect(new Set(events.map((e) => e.tx)).size).toBe(1);
  });

  it("a memory that is gone by the time of the record is left out, the rest recorded; stopping sends what was gathered", async () => {
    const kept = await create("Saggars protect the ware from ash.");
    const other = await create("Cones tell the kiln's heat work.");
    const backend = createCairnBackend(suite.gw.nc);
    // A window no test waits out: only the flush sends it.
    const recorder = createRecallRecorder(backend, { batchMs: 60_000 });
    const before = (await recalled()).length;
    recorder.record(teamKeys.alice, { memoryIds: [kept, randomUUID()], query: "saggars" });
    recorder.record(teamKeys.alice, { memoryIds: [randomUUID()], query: "nothing left" });
    recorder.record(teamKeys.alice, { memoryIds: [other], query: null });
    await recorder.flush();
    const events = (await recalled()).slice(before);
    expect(events.map((e) => e.memoryIds)).toEqual([[kept], [other]]);
  });
});

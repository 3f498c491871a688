// Re-ranking against the real service: signals projected from events change the order.
import { randomUUID } from "node:crypto";
import { rankingRpcs } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { candidateOf, type Harness, type MemorySpec, rankingTest, recorded } from "./ranking-harness.ts";

const test = rankingTest();

async function storeTwo(
  h: Harness,
): Promise<[MemorySpec & { id: string }, MemorySpec & { id: string }, number]> {
  const first = { id: randomUUID(), content: "The staging database is rebuilt every Monday night." };
  const second = {
    id: randomUUID(),
    content: "Staging database credentials for the reporting replica rotate every Monday.",
  };
  await h.publish(recorded(first));
  const position = await h.publish(recorded(second));
  return [first, second, position];
}

async function rerank(h: Harness, specs: (MemorySpec & { id: string })[], afterPosition: number) {
  return h.request(rankingRpcs.rerank, {
    query: "staging database monday",
    candidates: specs.map((s, i) => candidateOf(s, i + 1)),
    k: 10,
    explain: true,
    afterPosition,
  });
}

describe("ranking.rerank", () => {
  test("useful feedback lifts a memory above a slightly better retrieved one", async ({ ranking: h }) => {
    const [first, second, stored] = await storeTwo(h);
    const before = await rerank(h, [first, second], stored);
    expect(before.results.map((r) => r.id)).toEqual([first.id, second.id]);

    const position = await h.publish({
      type: "feedback.given",
      streamId: `activity-${second.id}`,
      data: { memoryId: second.id, useful: true, agent: "agent-a", note: null },
    });
    const after = await rerank(h, [first, second], position);
    expect(after.results.map((r) => r.id)).toEqual([second.id, first.id]);
    expect(after.results[0]?.signals).toMatchObject({ useful: 1, notUseful: 0 });
    expect(after.results[0]?.factors?.feedback).toBeGreaterThan(1);

    // The same agent changing its mind replaces its vote; it does not add one.
    const changed = await h.publish({
      type: "feedback.given",
      streamId: `activity-${second.id}`,
      data: { memoryId: second.id, useful: false, agent: "agent-a", note: "outdated" },
    });
    const penalised = await rerank(h, [first, second], changed);
    expect(penalised.results.map((r) => r.id)).toEqual([first.id, second.id]);
    expect(penalised.results[1]?.signals).toMatchObject({ useful: 0, notUseful: 1 });
    expect(penalised.results[1]?.factors?.feedback).toBeLessThan(1);
  });

  test("a memory the caller may not see is never ranked, whoever sends it", async ({ ranking: h }) => {
    const shared = { id: randomUUID(), content: "The staging database is rebuilt every Monday night." };
    const private_ = {
      id: randomUUID(),
      content: "My staging database notes for Monday.",
      scope: "agent" as const,
      agent: "agent-b",
    };
    await h.publish(recorded(shared));
    const position = await h.publish(recorded(private_));
    const reply = await rerank(h, [private_, shared], position);
    expect(reply.results.map((r) => r.id)).toEqual([shared.id]);
  });

  test("a deep memory (read deliberately, often) outranks a shallow one", async ({ ranking: h }) => {
    const [first, second] = await storeTwo(h);
    let position = 0;
    for (let i = 0; i < 3; i += 1) {
      position = await h.publish({
        type: "memories.recalled",
        streamId: `activity-${second.id}`,
        data: { memoryIds: [second.id], agent: "agent-a", viaKey: null, query: null },
      });
    }
    // Being listed by searches is not reading: it does not deepen a memory.
    for (let i = 0; i < 3; i += 1) {
      position = await h.publish({
        type: "memories.recalled",
        streamId: `activity-${first.id}`,
        data: { memoryIds: [first.id], agent: "agent-a", viaKey: null, query: "staging database" },
      });
    }
    const reply = await rerank(h, [first, second], position);
    expect(reply.results.map((r) => r.id)).toEqual([second.id, first.id]);
    expect(reply.results[1]?.signals).toMatchObject({ recalls: 3, reads: 0, depth: 0 });
    const deep = reply.results[0];
    expect(deep?.signals?.depth).toBeGreaterThan(0.5);
    expect(deep?.signals).toMatchObject({ recalls: 3, reads: 3 });
    expect(deep?.factors?.depth).toBeGreaterThan(1);
  });

  test("a memory about what the tenant keeps writing about has attention and a hot topic; many candidates' words are all read", async ({
    ranking: h,
  }) => {
    const topical = { id: randomUUID(), content: "Kubernetes cluster upgrades need a drained node first." };
    const quiet = { id: randomUUID(), content: "Quarterly budget spreadsheet lives in finance." };
    await h.publish(recorded(topical));
    await h.publish(recorded(quiet));
    let position = 0;
    for (let i = 0; i < 4; i += 1)
      position = await h.publish(
        recorded({ id: randomUUID(), content: `Kubernetes cluster note ${i}: upgrades and nodes.` }),
      );
    // Candidates with more distinct words than one command should carry (64 read of each).
    const word = (i: number, j: number) => `w${i.toString(36)}x${j.toString(36)}q`;
    const many = Array.from({ length: 30 }, (_, i) => ({
      id: randomUUID(),
      content: Array.from({ length: 70 }, (_, j) => word(i, j)).join(" "),
    }));
    for (const spec of many) position = await h.publish(recorded(spec));
    const reply = await h.request(rankingRpcs.rerank, {
      query: "kubernetes cluster upgrades",
      candidates: [topical, quiet, ...many].map((spec, i) => candidateOf(spec, i + 1)),
      k: 40,
      explain: true,
      afterPosition: position,
    });
    const signalsOf = (id: string) => reply.results.find((r) => r.id === id)?.signals;
    expect(signalsOf(topical.id)?.attention).toBeGreaterThan(0);
    expect(signalsOf(topical.id)?.hotTopic).toBeGreaterThan(0);
    expect(signalsOf(topical.id)?.attention).toBeGreaterThan(signalsOf(quiet.id)?.attention ?? 1);
    expect(signalsOf(topical.id)?.hotTopic).toBeGreaterThan(signalsOf(quiet.id)?.hotTopic ?? 1);
    // Every one of the 32 candidates came back with its signals, its words read too.
    expect(reply.results).toHaveLength(32);
    for (const spec of many) expect(signalsOf(spec.id)?.attention).toBeGreaterThan(0);
  });

  test("decay: with time the fresher memory wins; weight 1 turns decay off", async ({ ranking: h }) => {
    const old = { id: randomUUID(), content: "Deploys go through the blue-green switch." };
    const fresh = { id: randomUUID(), content: "Deploys go through the canary release pipeline." };
    const oldAt = h.clock.now.toISOString();
    await h.publish(recorded(old));
    h.clock.now = new Date(h.clock.now.getTime() + 90 * 86_400_000);
    const freshAt = h.clock.now.toISOString();
    const position = await h.publish(recorded(fresh));
    const candidates = [candidateOf(old, 1), candidateOf(fresh, 2)];
    const ask = (afterPosition: number) =>
      h.request(rankingRpcs.rerank, {
        query: "how do deploys work",
        candidates,
        explain: true,
        afterPosition,
      });

    const now = await ask(position);
    expect(now.results.map((r) => r.id)).toEqual([fresh.id, old.id]);
    expect(now.results[1]?.factors?.decay).toBeLessThan(now.results[0]?.factors?.decay ?? 0);

    // Back when the old one was new, neither had aged.
    h.clock.now = new Date(oldAt);
    const then = await ask(position);
    expect(then.results.map((r) => r.factors?.decay)).toEqual([1, 1]);

    h.clock.now = new Date(Date.parse(freshAt) + 400 * 86_400_000);
    const off = await h.publish({
      type: "tenant.settings_changed",
      streamId: `tenant-${h.tenant}`,
      data: {
        rankingWeights: {
          halfLifeDays: 60,
          sentiment: 1,
          feedback: 1,
          hotTopic: 1,
          attention: 1,
          depth: 1,
          decay: 1,
        },
      },
    });
    const undecayed = await ask(off);
    expect(undecayed.results.map((r) => r.id)).toEqual([old.id, fresh.id]);
    expect(undecayed.results[0]?.factors).toMatchObject({ decay: 1, sentiment: 1, feedback: 1, depth: 1 });
  });

  test("skip patterns and the workflow lock answer nothing", async ({ ranking: h }) => {
    const [first, second, stored] = await storeTwo(h);
    const candidates = [first, second].map((s, i) => candidateOf(s, i + 1));
    const trivial = await h.request(rankingRpcs.rerank, {
      query: "got it",
      candidates,
      afterPosition: stored,
    });
    expect(trivial).toMatchObject({ results: [], skip: { reason: "skip_pattern" } });

    const locked = await h.publish({
      type: "tenant.settings_changed",
      streamId: `tenant-${h.tenant}`,
      data: {
        skipPatterns: ["status\\??"],
        workflowLock: {
          reason: "migration in progress",
          expiresAt: new Date(h.clock.now.getTime() + 3_600_000).toISOString(),
        },
      },
    });
    const during = await h.request(rankingRpcs.rerank, {
      query: "staging database",
      candidates,
      afterPosition: locked,
    });
    expect(during).toMatchObject({
      results: [],
      skip: { reason: "workflow_lock", lockReason: "migration in progress" },
    });

    h.clock.now = new Date(h.clock.now.getTime() + 2 * 3_600_000);
    const afterLock = await h.request(rankingRpcs.rerank, {
      query: "staging database",
      candidates,
    });
    expect(afterLock.skip).toBeNull();
    expect(afterLock.results).toHaveLength(2);
    const custom = await h.request(rankingRpcs.rerank, { query: "status?", candidates });
    expect(custom.skip).toEqual({ reason: "skip_pattern", pattern: "status\\??" });
  });

  test("waits for its projections to reach a position, and refuses one the log has not reached", async ({
    ranking: h,
  }) => {
    const [first, , stored] = await storeTwo(h);
    const reply = await rerank(h, [first], stored);
    expect(reply.position).toBeGreaterThanOrEqual(stored);
    await expect(rerank(h, [first], stored + 1000)).rejects.toMatchObject({
      code: "validation_failed",
      details: { afterPosition: stored + 1000, logPosition: stored },
    });
  });
});

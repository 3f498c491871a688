// Replay equals live: random sequences of commands (fast-check) are projected live, then the
// log is replayed into empty read models, twice over: by `pnpm cairn rebuild`'s engine into
// new generations, and by the live projection itself after the read models were wiped. All
// three give identical documents, identical vectors, and the same memories for every query,
// principal and mode; vector results are identical rank by rank and score by score.
//
// Raw BM25 scores are compared only between the two replays: a live RediSearch index keeps
// the postings of replaced documents until its garbage collector gets to them (it visits
// random terms several times a second; 1.x cannot be told to run now), and until then they
// count in document frequencies. Two indexes built from the same log agree exactly.
import { randomUUID } from "node:crypto";
import type { CandidatesReply, Principal, RetrievalMode } from "@cairn/contracts";
import { rebuildFromHost } from "@cairn/projection-runtime";
import fc from "fast-check";
import { describe, expect } from "vitest";
import { projectionHostOf } from "../open-read-models.ts";
import type { ReadModelInspector } from "../testing/read-model-inspector.ts";
import { searchTest as test } from "../testing/search-test.ts";
import type { SearchUnderTest } from "../testing/search-under-test.ts";

const tenants = ["t1", "t2"] as const;
const agents = ["ann", "ben"] as const;
const words = [
  "orchid",
  "deploy",
  "database",
  "cache",
  "release",
  "kubernetes",
  "deploymnet",
  "部署",
  "流程",
  "ferns",
];

type Memory = {
  id: string;
  tier: "memory" | "proposal" | "handoff";
  status: string;
  supersededBy: string | null;
  author: { tenant: string; agent: string };
};

const text = fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 6 }).map((w) => w.join(" "));
const pick = fc.nat({ max: 1000 });

const step = fc.oneof(
  fc.record({
    op: fc.constant("record" as const),
    tier: fc.constantFrom("memory", "memory", "memory", "proposal", "handoff"),
    scope: fc.constantFrom("team", "team", "agent", "global"),
    tenant: fc.constantFrom(...tenants),
    agent: fc.constantFrom(...agents),
    text,
    tags: fc.subarray(["ops", "db", "ui"]),
  }),
  fc.record({ op: fc.constant("revise" as const), pick, text }),
  fc.record({ op: fc.constant("retag" as const), pick, tags: fc.subarray(["ops", "db", "ui"]) }),
  fc.record({
    op: fc.constantFrom("archive", "delete", "restore", "verify", "complete", "reject", "feedback"),
    pick,
  }),
  fc.record({
    op: fc.constant("invalidate" as const),
    pick,
    when: fc.constantFrom("past", "future", "lift"),
  }),
  fc.record({ op: fc.constantFrom("supersede", "promote"), pick, text }),
  fc.record({
    op: fc.constant("synonyms" as const),
    tenant: fc.constantFrom(...tenants),
    group: fc.subarray(words, { minLength: 2, maxLength: 3 }),
  }),
  fc.record({ op: fc.constant("poison" as const) }),
);
type Step = typeof step extends fc.Arbitrary<infer S> ? S : never;

/** Turns a step into events on the log, following each stream's lifecycle like ingest does. */
async function apply(search: SearchUnderTest, memories: Memory[], s: Step): Promise<void> {
  const log = search.log;
  const target = "pick" in s && memories.length > 0 ? memories[s.pick % memories.length] : undefined;
  const record = async (fields: Parameters<typeof log.record>[0] & { author: Memory["author"] }) => {
    const { id } = await log.record(fields);
    const memory: Memory = {
      id,
      tier: fields.tier ?? "memory",
      status: fields.tier === "proposal" ? "pending" : "active",
      supersededBy: null,
      author: fields.author,
    };
    memories.push(memory);
    return memory;
  };
  const change = (m: Memory, type: Parameters<typeof log.change>[1], data: unknown) =>
    log.change(m.id, type, data, { author: m.author });
  const revisedType = {
    memory: "memory.revised",
    proposal: "proposal.revised",
    handoff: "handoff.updated",
  } as const;
  const editable = (m: Memory) => (m.tier === "proposal" ? m.status === "pending" : m.status === "active");

  switch (s.op) {
    case "record":
      await record({
        author: { tenant: s.tenant, agent: s.agent },
        tier: s.tier,
        scope: s.scope,
        content: s.text,
        title: s.text.split(" ")[0] ?? "",
        tags: s.tags,
      });
      return;
    case "revise":
      if (target && editable(target)) await change(target, revisedType[target.tier], { content: s.text });
      return;
    case "retag":
      if (target && editable(target)) await change(target, revisedType[target.tier], { tags: s.tags });
      return;
    case "archive":
      if (target?.tier === "memory" && target.status === "active") {
        await change(target, "memory.archived", { reason: null });
        target.status = "archived";
      }
      return;
    case "delete":
      if (target?.tier === "memory" && target.status !== "deleted") {
        await change(target, "memory.deleted", { reason: null });
        target.status = "deleted";
      }
      return;
    case "restore":
      if (
        target?.tier === "memory" &&
        ["archived", "deleted"].includes(target.status) &&
        !target.supersededBy
      ) {
        await change(target, "memory.restored", { reason: null });
        target.status = "active";
      }
      return;
    case "verify":
      if (target?.tier === "memory" && target.status === "active") {
        await change(target, "memory.verified", { verifiedAt: "2026-10-01T00:00:00.000Z", note: null });
      }
      return;
    case "invalidate":
      if (target?.tier === "memory" && target.status !== "deleted") {
        const invalidAt = {
          past: "2026-01-01T00:00:00.000Z",
          future: "2999-01-01T00:00:00.000Z",
          lift: null,
        }[s.when];
        await change(target, "memory.invalidated", { invalidAt, reason: null });
      }
      return;
    case "complete":
      if (target?.tier === "handoff" && target.status === "active") {
        await change(target, "handoff.completed", { summary: null });
        target.status = "completed";
      }
      return;
    case "reject":
      if (target?.tier === "proposal" && target.status === "pending") {
        await change(target, "proposal.rejected", { reason: null });
        target.status = "rejected";
      }
      return;
    case "supersede":
      if (target?.tier === "memory" && target.status === "active") {
        const next = await record({ author: target.author, content: s.text, supersedes: target.id });
        await change(target, "memory.superseded", { supersededBy: next.id, reason: null });
        target.status = "superseded";
        target.supersededBy = next.id;
      }
      return;
    case "promote":
      if (target?.tier === "proposal" && target.status === "pending") {
        const next = await record({ author: target.author, content: s.text, promotedFrom: target.id });
        await change(target, "proposal.promoted", { memoryId: next.id });
        target.status = "promoted";
      }
      return;
    case "feedback":
      if (target) {
        await log.append(`activity-${target.id}`, "activity", [
          { type: "feedback.given", data: { memoryId: target.id, useful: true, agent: "ann", note: null } },
        ]);
      }
      return;
    case "synonyms":
      await log.setSynonyms(s.tenant, [s.group]);
      return;
    case "poison":
      // A change to a stream that was never recorded: dead-lettered alike by every replay.
      await log.change(randomUUID(), "memory.revised", { content: "orphan" });
      return;
    default: {
      const unreachable: never = s;
      throw new Error(`unknown step ${JSON.stringify(unreachable)}`);
    }
  }
}

const askers: Principal[] = [
  { tenant: "t1", agent: "ann", role: "agent", primary: false },
  { tenant: "t1", agent: "ben", role: "agent", primary: false },
  { tenant: "t1", agent: "boss", role: "admin", primary: true },
  { tenant: "t2", agent: "ann", role: "agent", primary: false },
];
const queries = ["orchid deploy", "database cache", "部署流程", "kubernetes release", "deploymnet ferns"];
const modes: RetrievalMode[] = ["lexical", "vector", "hybrid"];

type Snapshot = {
  documents: Awaited<ReturnType<ReadModelInspector["allDocuments"]>>;
  embeddings: Map<string, number[]>;
  results: Record<string, unknown>;
  deadLetters: unknown[];
};

function summarize(reply: CandidatesReply) {
  const round = (n: number) => Math.round(n * 1e6) / 1e6;
  return reply.candidates.map((c) => ({
    id: c.id,
    version: c.document.version,
    lexical: c.lexical && { rank: c.lexical.rank, score: round(c.lexical.score) },
    vector: c.vector && { rank: c.vector.rank, score: round(c.vector.score) },
  }));
}

type Summary = ReturnType<typeof summarize>;

/** What must agree between a live index and a replayed one: who is found, and the vector hits. */
function agreement(results: Record<string, unknown>) {
  return Object.fromEntries(
    Object.entries(results as Record<string, Summary>).map(([key, list]) => [
      key,
      key.includes(" vector ")
        ? list
        : [...list]
            .map((c) => ({ id: c.id, version: c.version, vector: c.vector }))
            .sort((a, b) => a.id.localeCompare(b.id)),
    ]),
  );
}

async function snapshot(search: SearchUnderTest, inspect: ReadModelInspector): Promise<Snapshot> {
  await search.settle();
  const results: Record<string, unknown> = {};
  for (const principal of askers) {
    for (const query of queries) {
      for (const mode of modes) {
        for (const filters of [
          {},
          { includeExpired: true, status: ["active", "archived"] as ("active" | "archived")[] },
        ]) {
          const reply = await search.candidates({ principal, query, mode, candidateK: 100, filters });
          results[`${principal.tenant}/${principal.agent} ${mode} ${query} ${JSON.stringify(filters)}`] =
            summarize(reply);
        }
      }
    }
  }
  const { rows } = await search.pool.query(
    "select projection, position, event_id, reason from cairn_projections.dead_letters order by projection, position",
  );
  return {
    documents: await inspect.allDocuments(),
    embeddings: await inspect.allEmbeddings(),
    results,
    deadLetters: rows.map((r) => ({ ...r })),
  };
}

async function rebuildAll(inspect: ReadModelInspector): Promise<void> {
  for (const name of ["search.lexical", "search.vector"] as const) {
    await rebuildFromHost(projectionHostOf(inspect.models), name, { dropDelayMs: 0 });
  }
}

async function wipeReadModels(search: SearchUnderTest, inspect: ReadModelInspector): Promise<void> {
  await search.stopService();
  const redis = inspect.models.redis;
  for (const g of [await inspect.models.lexicalStore.activeGeneration()]) {
    if (g !== null) await inspect.models.lexicalStore.generations.drop(g);
  }
  const keys = await redis.keys(`${search.env.CAIRN_REDIS_PREFIX}*`);
  if (keys.length > 0) await redis.del(...keys);
  const active = await inspect.models.vector.generations.active();
  if (active !== null) await inspect.models.vector.generations.drop(active);
  await search.pool.query("delete from cairn_projections.dead_letters");
}

describe("replay equals live", () => {
  test("live projection, a rebuild, and a replay into wiped read models agree on everything", async ({
    search,
    inspect,
  }) => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 5, maxLength: 40 }), async (steps) => {
        run += 1;
        const memories: Memory[] = [];
        for (const s of steps) await apply(search, memories, s);
        const live = await snapshot(search, inspect);

        await rebuildAll(inspect);
        const rebuilt = await snapshot(search, inspect);
        expect(rebuilt.documents).toEqual(live.documents);
        expect(rebuilt.embeddings).toEqual(live.embeddings);
        expect(agreement(rebuilt.results)).toEqual(agreement(live.results));

        await wipeReadModels(search, inspect);
        await search.restartService();
        const replayed = await snapshot(search, inspect);
        expect(replayed.documents).toEqual(live.documents);
        expect(replayed.embeddings).toEqual(live.embeddings);
        expect(replayed.results).toEqual(rebuilt.results);
        // Dead letters name the same events (generation numbers differ by design).
        const strip = (rows: unknown[]) =>
          (rows as { projection: string; position: string; event_id: string; reason: string }[]).map(
            ({ projection, position, event_id, reason }) => ({ projection, position, event_id, reason }),
          );
        expect(strip(replayed.deadLetters)).toEqual(
          strip(live.deadLetters).filter(
            (row, i, all) => all.findIndex((r) => JSON.stringify(r) === JSON.stringify(row)) === i,
          ),
        );
      }),
      { numRuns: 12, endOnFailure: true },
    );
    expect(run).toBe(12);
  }, 240_000);
});

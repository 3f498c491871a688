// Ranking with the real write and read paths: ingest, search and ranking as processes on
// real Postgres, Redis and NATS. Memories are written with ingest's commands; a recall is asked
// step by step: expand → search.candidate_ids → rerank → search.documents.
import { call, connectBus } from "@cairn/bus";
import {
  commandRpc,
  healthRpc,
  type MemoryDocument,
  type Principal,
  type RerankReply,
  rankingRpcs,
  searchRpcs,
  type WriteResult,
} from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { infraTest, makeUniqueName, startNats, waitFor } from "@cairn/testing";
import type { NatsConnection } from "@nats-io/nats-core";
import { describe, expect } from "vitest";
import { type ServiceProcess, spawnService } from "../helpers/service-processes.ts";

type Cairn = {
  nc: NatsConnection;
  principal: Principal;
  remember: (content: string, keys?: string[]) => Promise<WriteResult>;
  recall: (
    query: string,
    afterPosition: number,
    options?: { expand?: boolean; mode?: "lexical" | "hybrid" },
  ) => Promise<
    Omit<RerankReply, "results"> & {
      results: (RerankReply["results"][number] & { document: MemoryDocument })[];
      expansions: string[];
    }
  >;
};

// One deployment per file, on a NATS server of its own: positions restart with each
// database, so the event stream must not hold another test's events.
const test = infraTest
  .extend("deployment", { scope: "file" }, async ({ postgres, redis }, { onCleanup }) => {
    const name = makeUniqueName("rk");
    const nats = await startNats();
    const databaseUrl = await postgres.createDatabase(`db_${name}`);
    await migrateToLatest(databaseUrl);
    const env = {
      CAIRN_DATABASE_URL: databaseUrl,
      CAIRN_REDIS_URL: redis.url,
      CAIRN_NATS_URL: nats.url,
      CAIRN_METRICS_PORT: "off",
      CAIRN_LOG_LEVEL: "warn",
      CAIRN_REDIS_PREFIX: `${name}:search:`,
      CAIRN_RANKING_REDIS_PREFIX: `${name}:ranking:`,
    };
    const processes: ServiceProcess[] = (["ingest", "search", "ranking"] as const).map((s) =>
      spawnService(s, env),
    );
    const nc = await connectBus({ url: nats.url, name: `test-${name}` });
    onCleanup(async () => {
      await nc.close();
      await Promise.all(processes.map((p) => p.stop()));
      await nats.stop();
    });
    for (const service of ["ingest", "search", "ranking"] as const) {
      await waitFor(async () => (await call(nc, healthRpc(service), {}, { timeoutMs: 1000 })).ok, {
        timeoutMs: 60_000,
        intervalMs: 200,
        description: `${service} to answer its health check`,
      }).catch((error: unknown) => {
        for (const p of processes) console.error(`--- ${p.name}\n${p.logs.slice(-30).join("\n")}`);
        throw error;
      });
    }
    return { nc };
  })
  .extend("cairn", async ({ deployment, uniqueName }) => {
    const { nc } = deployment;
    const principal: Principal = {
      tenant: uniqueName.replaceAll("_", "-"),
      agent: "alice",
      role: "admin",
      primary: false,
    };
    let n = 0;
    const cairn: Cairn = {
      nc,
      principal,
      remember: (content, keys = []) => {
        n += 1;
        return call(nc, commandRpc("memory.create"), {
          principal,
          memory: { slot: `note-${n}`, content, keys },
        });
      },
      recall: async (query, afterPosition, options = {}) => {
        const expansion = await call(nc, rankingRpcs.expand, {
          principal,
          query,
          afterPosition,
        });
        const expansions = options.expand === false ? [] : expansion.terms;
        const candidates = await call(nc, searchRpcs.candidateIds, {
          principal,
          query,
          mode: options.mode ?? "hybrid",
          expansions,
          afterPosition,
          candidateK: 50,
        });
        const reranked = await call(nc, rankingRpcs.rerank, {
          principal,
          query,
          candidates: candidates.candidates,
          expansions,
          explain: true,
          afterPosition,
        });
        // Ranking answers with ids and scores; the documents of the results are search's.
        const read = await call(nc, searchRpcs.documents, {
          principal,
          ids: reranked.results.map((r) => r.id),
        });
        const documents = new Map(read.documents.map((d) => [d.id, d]));
        const results = reranked.results.map((r) => ({
          ...r,
          document: documents.get(r.id) as MemoryDocument,
        }));
        return { ...reranked, results, expansions, candidateCount: candidates.candidates.length };
      },
    };
    return cairn;
  });

describe("associative recall through the real services", () => {
  test("co-occurrence expansion reaches a memory that shares no word with the query", async ({ cairn }) => {
    await cairn.remember("Python services use Django for the billing API.");
    await cairn.remember("Our Python workers share the Django settings module.");
    await cairn.remember("Rust handles the image pipeline.");
    const target = await cairn.remember("Admin templates are overridden in the Django project folder.");
    const position = target.position;

    // The words alone do not reach it ...
    const plain = await cairn.recall("python", position, { expand: false, mode: "lexical" });
    expect(plain.results.map((r) => r.id)).not.toContain(target.id);

    // ... the association does.
    const associative = await cairn.recall("python", position, { mode: "lexical" });
    expect(associative.expansions).toContain("Django");
    const reached = associative.results.find((r) => r.id === target.id);
    expect(reached).toBeDefined();
    expect(reached?.document.content).not.toMatch(/python/i);
    // It came in through the expansion, so it ranks below the memories naming Python.
    expect(associative.results[0]?.document.content).toMatch(/python/i);
  });

  test("feedback and reads given through ingest change ranking and the key graph", async ({ cairn }) => {
    const first = await cairn.remember("The staging database is rebuilt every Monday night.", ["staging"]);
    const second = await cairn.remember(
      "Staging database credentials for the reporting replica rotate every Monday.",
      ["staging"],
    );
    const before = await cairn.recall("staging database monday", second.position);
    expect(before.results.map((r) => r.id)).toEqual([first.id, second.id]);

    const feedback = await call(cairn.nc, commandRpc("feedback.give"), {
      principal: cairn.principal,
      memoryId: second.id,
      useful: true,
    });
    const after = await cairn.recall("staging database monday", feedback.position);
    expect(after.results.map((r) => r.id)).toEqual([second.id, first.id]);

    const keys = await call(cairn.nc, rankingRpcs.keysRecall, {
      principal: cairn.principal,
      query: "staging",
      afterPosition: feedback.position,
    });
    const key = keys.keys[0];
    expect(key).toMatchObject({ label: "staging", linkedCount: 2 });
    const read = await call(cairn.nc, commandRpc("recalls.record"), {
      principal: cairn.principal,
      memoryIds: [first.id],
      viaKey: key?.keyId,
    });
    const listing = await call(cairn.nc, rankingRpcs.keysRead, {
      principal: cairn.principal,
      keyId: key?.keyId as string,
      afterPosition: read.position,
    });
    expect(listing.memories[0]).toMatchObject({ id: first.id });
    expect(listing.memories[0]?.linkWeight).toBeGreaterThan(1);
    expect(listing.memories[0]?.depth).toBeGreaterThan(0);
  });
});

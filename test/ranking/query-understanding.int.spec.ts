// Query understanding through the real services: memories written through the gateway's REST
// API (ingest derives entities, ranking's projection the speaker and the times each text
// names), then searched with questions whose answer the words alone rank too low. The lexical
// retriever's own order (search.candidates) is the comparison; REST search (expand → hybrid
// candidates → rerank) should put the answer first and say why.
import { call, connectBus } from "@cairn/bus";
import { type IntentMatch, searchRpcs } from "@cairn/contracts";
import { type GatewayHarness, startGatewayHarness, teamKeys } from "@cairn/gateway/testing";
import type { ServiceHandle } from "@cairn/service-runtime";
import type { NatsConnection } from "@nats-io/nats-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type SuiteInfrastructure, startSuiteInfrastructure } from "../gateway/gateway-stack.ts";
import { restRequest } from "../helpers/gateway-client.ts";
import { startServices, stopServices, testServiceEnv } from "../helpers/in-process-services.ts";

let suite: SuiteInfrastructure;
let services: ServiceHandle[] = [];
let gw: GatewayHarness;
let nc: NatsConnection;

beforeAll(async () => {
  suite = await startSuiteInfrastructure("query_understanding");
  services = await startServices(testServiceEnv(suite.infra), ["ingest", "search", "ranking"]);
  gw = await startGatewayHarness({ databaseUrl: suite.infra.databaseUrl, natsUrl: suite.infra.natsUrl });
  nc = await connectBus({ url: suite.infra.natsUrl, name: "query-understanding-test" });
});

afterAll(async () => {
  await nc?.close();
  await gw?.close();
  await stopServices(services);
  await suite?.infrastructure.stop();
});

type Result = {
  document: { id: string; slot: string };
  explanation: { factors: Record<string, number> | null; intent: IntentMatch | null };
};

const rest = (method: string, path: string, body?: unknown) =>
  restRequest(gw.baseUrl, gw.keys.alice, { method, path, body });

/**
 * A conversation's turns, each with the session's time, as an agent writing it down would
 * store them; the last position written and each memory's slot by id.
 */
async function remember(turns: { slot: string; content: string; validFrom: string }[]) {
  let position = 0;
  const slots = new Map<string, string>();
  for (const [order, turn] of turns.entries()) {
    const created = await rest("POST", "/v1/memories", {
      ...turn,
      kind: "episode",
      episode: { id: `chat-${turn.validFrom.slice(0, 10)}`, order },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const written = (await created.json()) as { id: string; position: number };
    position = Math.max(position, written.position);
    slots.set(written.id, turn.slot);
  }
  return { position, slots };
}

/** The slots the lexical retriever alone ranks first, at `position`. */
async function lexicalOrder(query: string, position: number, slots: Map<string, string>): Promise<string[]> {
  const reply = await call(nc, searchRpcs.candidates, {
    principal: teamKeys.alice,
    query,
    mode: "lexical",
    episodes: false,
    afterPosition: position,
    waitTimeoutMs: 15_000,
  });
  return reply.candidates.map((c) => slots.get(c.id) ?? c.id);
}

async function search(query: string): Promise<Result[]> {
  const res = await rest(
    "GET",
    `/v1/memories?q=${encodeURIComponent(query)}&explain=true&consistency=strong`,
  );
  expect(res.status, await res.clone().text()).toBe(200);
  return ((await res.json()) as { results: Result[] }).results;
}

describe("query understanding", () => {
  it("answers a when-question with the memory that names the time, and a date question with the memory of that time", async () => {
    const { position, slots } = await remember([
      {
        slot: "chat/may-08/support-group-talk",
        content:
          "Caroline: The support group was about the support group stories, the support group people and the support group itself.",
        validFrom: "2023-05-08T13:56:00Z",
      },
      {
        slot: "chat/may-08/support-group-visit",
        content: "Caroline: I went to a support group yesterday, it meant a lot.",
        validFrom: "2023-05-08T13:56:00Z",
      },
      {
        slot: "chat/may-08/melanie-race",
        content: "Melanie: I ran a charity race for the support group last Saturday.",
        validFrom: "2023-05-08T13:58:00Z",
      },
      {
        slot: "chat/aug-10/lake-painting",
        content:
          "Melanie: Painting the lake painting was my favourite painting of all, I painted it in oils.",
        validFrom: "2023-08-10T18:00:00Z",
      },
      {
        slot: "chat/jun-20/sunset",
        content: "Melanie: Here is the sunset I painted, the colours calm me.",
        validFrom: "2023-06-20T18:00:00Z",
      },
    ]);

    const when = "When did Caroline go to the support group?";
    expect((await lexicalOrder(when, position, slots))[0]).toBe("chat/may-08/support-group-talk");
    const answered = await search(when);
    expect(answered[0]?.document.slot).toBe("chat/may-08/support-group-visit");
    expect(answered[0]?.explanation.intent).toMatchObject({
      asks: "time",
      answers: true,
      names: ["Caroline"],
    });
    expect(answered[0]?.explanation.factors?.intent).toBeGreaterThan(1);
    // Melanie's line names a time but is not Caroline's: it meets half of what was asked.
    const melanie = answered.find((r) => r.document.slot === "chat/may-08/melanie-race");
    expect(melanie?.explanation.intent).toMatchObject({ answers: true, names: [], fit: 0.5 });

    const dated = "What did Melanie paint in June?";
    expect((await lexicalOrder(dated, position, slots))[0]).toBe("chat/aug-10/lake-painting");
    const inJune = await search(dated);
    expect(inJune[0]?.document.slot).toBe("chat/jun-20/sunset");
    expect(inJune[0]?.explanation.intent).toMatchObject({
      inTime: true,
      times: [{ text: "June", anyYear: true }],
      names: ["Melanie"],
    });
  });
});

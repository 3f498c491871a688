// Consolidation on real services: the dry run changes nothing and says which memories would
// become one; the applied run records the consolidated memory and supersedes the group, whose
// members stay reachable in history. The summary comes from an OpenAI-compatible chat
// endpoint when one is configured (here a local server speaking that protocol).
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { type MemoryDocument, streamIdFor } from "@cairn/contracts";
import { infraTest } from "@cairn/testing";
import { describe, expect } from "vitest";
import { type Cairn, cairnTest, dayMs, startCairn } from "./maintenance-harness.ts";

const related = [
  "The deploy pipeline runs on GitHub Actions and pushes images to the registry.",
  "Deploy pipeline: images are pushed to the registry after the GitHub Actions build.",
  "Our deploy pipeline uses GitHub Actions; the registry keeps the last twenty images.",
  "GitHub Actions runs the deploy pipeline and pushes images to the registry on every merge.",
];

async function seed(cairn: Cairn) {
  const ids: string[] = [];
  for (const [i, content] of related.entries()) {
    ids.push((await cairn.create({ slot: `deploy-note-${i}`, kind: "fact", content, tags: ["deploy"] })).id);
  }
  const lunch = await cairn.create({
    slot: "lunch-time",
    kind: "fact",
    content: "Lunch is served at noon in the cafeteria.",
    tags: ["office"],
  });
  return { ids, lunch: lunch.id };
}

const test = cairnTest();

describe("maintenance: consolidation", () => {
  test("previews, then merges a related group into one memory that supersedes it", async ({ cairn }) => {
    const { ids, lunch } = await seed(cairn);
    // Too young: nothing to consolidate yet.
    expect((await cairn.run("consolidation")).actions).toEqual([]);

    cairn.clock.now = new Date(Date.now() + 10 * dayMs);
    const before = await cairn.store.lastCommittedPosition();
    const dry = await cairn.run("consolidation");
    expect(dry.outcome).toBe("ok");
    expect(dry.actions).toHaveLength(1);
    const planned = dry.actions[0];
    expect(planned).toMatchObject({ action: "consolidate", status: "planned", resultId: null });
    expect([...(planned?.ids ?? [])].sort()).toEqual([...ids].sort());
    expect(planned?.detail).toMatchObject({ level: 2, summarizer: "extractive" });
    expect(planned?.ids).not.toContain(lunch);
    // The dry run wrote its record and nothing else.
    expect((await cairn.logAfter(before)).map((e) => e.type)).toEqual(["maintenance.run_recorded"]);

    const applied = await cairn.run("consolidation", { apply: true });
    const action = applied.actions[0];
    expect(action).toMatchObject({ action: "consolidate", status: "applied" });
    const consolidatedId = action?.resultId as string;
    expect(consolidatedId).toEqual(expect.any(String));
    expect(applied.position).toEqual(expect.any(Number));
    await cairn.settle();

    const consolidated = (await cairn.get(consolidatedId)).document as MemoryDocument;
    expect(consolidated).toMatchObject({ status: "active", level: 2, kind: "fact", scope: "team" });
    expect([...(consolidated.consolidatedFrom ?? [])].sort()).toEqual([...ids].sort());
    expect(consolidated.tags).toContain("deploy");
    expect(consolidated.content).toMatch(/deploy pipeline/i);
    expect(consolidated.content).toMatch(/registry/);
    // The slot of one member, the others as aliases: lookups by any of them still land.
    expect(ids.map((_, i) => `deploy-note-${i}`)).toContain(consolidated.slot);
    expect(consolidated.aliases.length).toBe(3);

    for (const id of ids) {
      // Superseded, not gone: each original is still readable, pointing at the consolidation.
      const original = (await cairn.get(id)).document;
      expect(original).toMatchObject({ status: "superseded", supersededBy: consolidatedId });
      expect(original.content).toBe(related[ids.indexOf(id)]);
      const history = await cairn.store.readStream(streamIdFor("memory", id));
      expect(history.map((e) => e.type)).toEqual(["memory.recorded", "memory.superseded"]);
      expect(history[1]?.meta.correlationId).toBe(applied.runId);
    }
    expect((await cairn.get(lunch)).document.status).toBe("active");

    // The next run finds the group consolidated already.
    expect((await cairn.run("consolidation", { apply: true })).actions).toEqual([]);
  });
});

type ChatRequest = { model: string; messages: { role: string; content: string }[] };

async function startChatServer(): Promise<{ server: Server; url: string; requests: ChatRequest[] }> {
  const requests: ChatRequest[] = [];
  const read = async (req: IncomingMessage) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    return body;
  };
  const server = createServer((req, res) => {
    void read(req).then((body) => {
      if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
        res.writeHead(404).end();
        return;
      }
      const request = JSON.parse(body) as ChatRequest;
      requests.push(request);
      const answer = {
        title: "Deploy pipeline (merged)",
        content:
          "GitHub Actions builds every merge and the deploy pipeline pushes the images to the registry, which keeps the last twenty.",
      };
      res.writeHead(200, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          id: "chatcmpl-test",
          object: "chat.completion",
          model: request.model,
          choices: [
            {
              index: 0,
              finish_reason: "stop",
              message: { role: "assistant", content: JSON.stringify(answer) },
            },
          ],
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, requests };
}

const chatTest = infraTest.extend("chat", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }) => {
  const chat = await startChatServer();
  const cairn = await startCairn(
    { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, uniqueName },
    {
      env: {
        CAIRN_SUMMARY_URL: chat.url,
        CAIRN_SUMMARY_MODEL: "test-model",
        CAIRN_SUMMARY_API_KEY: "sk-test-0000",
      },
    },
  );
  onCleanup(async () => {
    await cairn.stop();
    await new Promise((resolve) => chat.server.close(resolve));
  });
  return { ...chat, cairn };
});

describe("maintenance: consolidation with a chat model", () => {
  chatTest("asks the configured chat endpoint for the summary, only when applying", async ({ chat }) => {
    const { cairn, requests } = chat;
    const { ids } = await seed(cairn);
    cairn.clock.now = new Date(Date.now() + 10 * dayMs);
    await cairn.run("consolidation");
    expect(requests).toHaveLength(0);

    const applied = await cairn.run("consolidation", { apply: true });
    expect(applied.actions[0]).toMatchObject({
      status: "applied",
      detail: { summarizer: "chat:test-model" },
    });
    expect(requests).toHaveLength(1);
    const request = requests[0] as ChatRequest;
    expect(request.model).toBe("test-model");
    expect(request.messages[0]?.role).toBe("system");
    expect(request.messages[0]?.content).toMatch(/data, never instructions/);
    const notes = JSON.parse(request.messages[1]?.content ?? "{}") as { notes: { content: string }[] };
    expect(notes.notes.map((n) => n.content).sort()).toEqual([...related].sort());

    await cairn.settle();
    const consolidated = (await cairn.get(applied.actions[0]?.resultId as string)).document;
    expect(consolidated.title).toBe("Deploy pipeline (merged)");
    expect(consolidated.content).toMatch(/^GitHub Actions builds every merge/);
    expect([...(consolidated.consolidatedFrom ?? [])].sort()).toEqual([...ids].sort());
  });
});

// `GET /v1/events`, the console's event timeline, against the real stack: an admin's tenant
// newest first a page at a time, one stream with each version's text, nothing readable of a
// memory the admin may not see, no sealed value ever, and nobody else's tenant.
import { createApiKey, openKeyDatabase } from "@cairn/gateway";
import { expect } from "vitest";
import { adminKey } from "../helpers/in-process-cairn.ts";
import { caughtUp, type Stack, consoleTest as test, written } from "./console-fixtures.ts";

type TimelineEvent = {
  position: number;
  actor: string;
  type: string;
  streamId: string | null;
  version: number;
  memoryIds: string[];
  visible: boolean;
  data: Record<string, unknown> | null;
  text: { title: string | null; content: string | null } | null;
};
type Timeline = { events: TimelineEvent[]; next: number | null };

async function timeline(stack: Stack, key: string, query = ""): Promise<{ body: Timeline; raw: string }> {
  const res = await stack.call(key, "GET", `/v1/events${query}`);
  const raw = await res.text();
  expect(res.status, raw).toBe(200);
  return { body: JSON.parse(raw) as Timeline, raw };
}

test("an admin reads the tenant's events newest first, a page at a time, never a sealed value", async ({
  stack,
}) => {
  let last = 0;
  for (const n of [1, 2, 3, 4, 5]) {
    last = (
      await written(
        await stack.rest("POST", "/v1/memories", {
          slot: `notes/n${n}`,
          content: `Note number ${n} about turtles.`,
        }),
      )
    ).position;
  }
  await caughtUp(stack, adminKey, last);
  const seen: TimelineEvent[] = [];
  let query = "?limit=2";
  for (let page = 0; page < 10; page++) {
    const { body, raw } = await timeline(stack, adminKey, query);
    expect(raw).not.toContain("cairn-sealed:");
    seen.push(...body.events);
    if (body.next === null) break;
    expect(body.events).toHaveLength(2);
    query = `?limit=2&before=${body.next}`;
  }
  const positions = seen.map((e) => e.position);
  expect(positions).toEqual([...positions].sort((a, b) => b - a));
  expect(new Set(positions).size).toBe(positions.length);
  const recorded = seen.filter((e) => e.type === "memory.recorded");
  expect(recorded).toHaveLength(5);
  expect(recorded.map((e) => e.text?.content)).toEqual(
    [5, 4, 3, 2, 1].map((n) => `Note number ${n} about turtles.`),
  );
  for (const e of recorded) {
    expect(e.visible).toBe(true);
    expect(e.actor).toBe("admin");
    expect(e.data).not.toHaveProperty("content");
    expect(e.data).not.toHaveProperty("title");
    expect(e.data).toHaveProperty("slot");
  }
});

test("one stream's events carry the text of the version each made", async ({ stack }) => {
  const memory = await written(
    await stack.rest("POST", "/v1/memories", { slot: "deploy/region", content: "Deploys go to eu-west-1." }),
  );
  const patched = await stack.call(
    adminKey,
    "PATCH",
    `/v1/memories/${memory.id}`,
    { content: "Deploys go to eu-central-1." },
    { "if-match": '"1"' },
  );
  expect(patched.status, await patched.clone().text()).toBe(200);
  const { position } = (await patched.json()) as { position: number };
  await caughtUp(stack, adminKey, position);
  const { body } = await timeline(stack, adminKey, `?stream=memory-${memory.id}`);
  expect(body.events.map((e) => [e.type, e.version, e.text?.content])).toEqual([
    ["memory.revised", 2, "Deploys go to eu-central-1."],
    ["memory.recorded", 1, "Deploys go to eu-west-1."],
  ]);
  expect(body.next).toBeNull();
});

test("an admin who is not the primary agent sees another agent's private memory only as who, when and what", async ({
  stack,
}) => {
  const agent = await stack.keyFor("codex", "agent");
  const admin = await stack.keyFor("ops-lead", "admin");
  const secret = await written(
    await stack.call(agent, "POST", "/v1/memories", {
      slot: "codex/private",
      scope: "agent",
      content: "A private worry about the release date.",
    }),
  );
  const feedback = await stack.call(agent, "POST", "/v1/feedback", { memoryId: secret.id, useful: true });
  expect(feedback.status, await feedback.clone().text()).toBe(201);
  const { position } = (await feedback.json()) as { position: number };
  await caughtUp(stack, agent, position);

  const { body, raw } = await timeline(stack, admin);
  expect(raw).not.toContain(secret.id);
  expect(raw).not.toContain("release date");
  const hidden = body.events.filter((e) => e.actor === "codex");
  expect(hidden.map((e) => e.type).sort()).toEqual(["feedback.given", "memory.recorded"]);
  for (const e of hidden) {
    expect(e).toMatchObject({ visible: false, data: null, text: null, memoryIds: [] });
  }
  expect(hidden.find((e) => e.type === "memory.recorded")?.streamId).toBeNull();

  // The primary agent sees every agent's memories, so it reads the text too.
  const primary = await timeline(stack, adminKey, `?stream=memory-${secret.id}`);
  expect(primary.body.events.map((e) => [e.visible, e.text?.content])).toEqual([
    [true, "A private worry about the release date."],
  ]);
});

test("the timeline is an admin's, of their own tenant only", async ({ stack, databaseUrl }) => {
  const reviewer = await stack.keyFor("rita", "reviewer");
  const refused = await stack.call(reviewer, "GET", "/v1/events");
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { code: string }).code).toBe("forbidden");

  const pool = openKeyDatabase(databaseUrl);
  const other = await createApiKey(pool, {
    tenant: "globex",
    agent: "boss",
    role: "admin",
    primary: true,
  }).finally(() => pool.end());
  const theirs = await written(
    await stack.call(other.key, "POST", "/v1/memories", {
      slot: "globex/plan",
      content: "Globex's own plan.",
    }),
  );
  const ours = await written(
    await stack.rest("POST", "/v1/memories", { slot: "acme/plan", content: "Acme's plan." }),
  );
  await caughtUp(stack, adminKey, Math.max(theirs.position, ours.position));

  const { body, raw } = await timeline(stack, adminKey);
  expect(raw).not.toContain("Globex's own plan.");
  expect(body.events.map((e) => e.streamId)).not.toContain(`memory-${theirs.id}`);
  expect(body.events.map((e) => e.streamId)).toContain(`memory-${ours.id}`);
  const asked = await timeline(stack, adminKey, `?stream=memory-${theirs.id}`);
  expect(asked.body.events).toEqual([]);
});

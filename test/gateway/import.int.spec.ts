// Import through REST, against the real ingest and search services: a file sent as the body is a
// dry run until `apply=true`; applied, every record goes through ingest (a secret refused and
// reported, a memory another import already holds reported with its id); the same file again
// adds nothing; a vault comes as a zip or a gzipped tar; an export read back into another tenant
// gives the same memories; files too large or unreadable are refused with stable codes.
import { gzipSync } from "node:zlib";
import type { KeyName } from "@cairn/gateway/testing";
import { zipSync } from "fflate";
import { createTar } from "nanotar";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HarnessSuite, startHarnessSuite } from "./gateway-stack.ts";

const limits = { maxBytes: 64 * 1024, maxUnpackedBytes: 256 * 1024, maxFiles: 40 };

let suite: HarnessSuite;

beforeAll(async () => {
  suite = await startHarnessSuite("gateway_import", { importLimits: limits });
});

afterAll(async () => {
  await suite?.stop();
});

type Summary = {
  applied: boolean;
  records: number;
  byTier: Record<string, number>;
  created?: number;
  alreadyImported?: number;
  stepsApplied?: number;
  duplicates?: { sourceRef: string; holderId: string | null }[];
  refused?: { sourceRef: string; action: string; code: string; message: string }[];
  problems: { where: string; message: string }[];
  position?: number | null;
};

type Problem = { status: number; code: string; detail: string; hint?: string; details?: { reason?: string } };

/** `POST /v1/import` with a file as the body. */
function upload(key: KeyName, query: string, body: Uint8Array | string, contentType: string) {
  return fetch(`${suite.gw.baseUrl}/v1/import?${query}`, {
    method: "POST",
    headers: { authorization: `Bearer ${suite.gw.keys[key]}`, "content-type": contentType },
    body: typeof body === "string" ? body : Buffer.from(body),
  });
}

async function summaryOf(res: Response): Promise<Summary> {
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as Summary;
}

async function problemOf(res: Response, status: number): Promise<Problem> {
  expect(res.status, await res.clone().text()).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  return (await res.json()) as Problem;
}

/** Waits until the read models have applied `position` (read-your-writes through REST). */
async function caughtUp(key: KeyName, position: number | null | undefined) {
  expect(position).toBeGreaterThan(0);
  const res = await suite.rest(key, "GET", `/v1/memories?afterPosition=${position}&limit=1`);
  expect(res.status, await res.clone().text()).toBe(200);
}

/** The records of `GET /v1/export` for a key. */
async function exported(key: KeyName) {
  const res = await suite.rest(key, "GET", "/v1/export");
  expect(res.status).toBe(200);
  const lines = (await res.text()).trim().split("\n");
  expect(JSON.parse(lines.at(-1) as string)).toMatchObject({ end: true, complete: true });
  return lines.slice(1, -1).map(
    (line) =>
      JSON.parse(line) as {
        id: string;
        slot: string;
        tier: string;
        status: string;
        title: string;
        content: string;
        tags: string[];
        keys: string[];
        links: string[];
        versions: { title?: string; content?: string }[];
      },
  );
}

const token = `ghp_${"a1B2c3D4e5".repeat(4).slice(0, 36)}`;
const mem0File = JSON.stringify({
  results: [
    { id: "m1", memory: "Prefers dark mode in every editor.", user_id: "ana", categories: ["ui"] },
    { id: "m2", memory: `The deploy token is ${token}`, user_id: "ana" },
  ],
});

describe("POST /v1/import", () => {
  it("reads a file as a dry run, writes it with apply=true, and adds nothing the second time", async () => {
    const dry = await summaryOf(await upload("alice", "from=mem0", mem0File, "application/json"));
    expect(dry).toMatchObject({ applied: false, records: 2, byTier: { memory: 2, proposal: 0, handoff: 0 } });
    expect(dry.created).toBeUndefined();
    expect(await exported("alice")).toEqual([]);

    const applied = await summaryOf(
      await upload("alice", "from=mem0&apply=true&name=ana.json", mem0File, "application/json"),
    );
    expect(applied).toMatchObject({
      applied: true,
      records: 2,
      created: 1,
      alreadyImported: 0,
      duplicates: [],
    });
    // The secret: refused by ingest, reported by record, never stored.
    expect(applied.refused).toEqual([
      expect.objectContaining({ sourceRef: "ana.json:m2", action: "create", code: "secret_detected" }),
    ]);
    await caughtUp("alice", applied.position);
    const afterFirst = await exported("alice");
    expect(afterFirst.map((r) => r.content)).toEqual(["Prefers dark mode in every editor."]);
    expect(afterFirst[0]?.tags).toEqual(["ui"]);

    const again = await summaryOf(
      await upload("alice", "from=mem0&apply=true", mem0File, "application/json"),
    );
    expect(again).toMatchObject({ applied: true, created: 0, alreadyImported: 1, duplicates: [] });
    expect(await exported("alice")).toEqual(afterFirst);

    // Another key importing the same file: each record is reported with the memory holding it.
    const bobs = await summaryOf(await upload("bob", "from=mem0&apply=true", mem0File, "application/json"));
    expect(bobs).toMatchObject({ created: 0, alreadyImported: 0 });
    expect(bobs.duplicates).toEqual([{ sourceRef: "upload:m1", holderId: afterFirst[0]?.id }]);
  });

  it("takes a Markdown vault as a zip or a gzipped tar, and a gzipped JSON Lines file", async () => {
    const vault = {
      "notes/Release.md": "---\ntags: [ops]\n---\nRelease on Tuesdays. See [[Checklist]].\n",
      "notes/Checklist.md": "Run the migrations first, then tag the release.\n",
      "notes/.obsidian/workspace.json": "{}",
      "notes/attachments/diagram.png": "not really a picture",
    };
    const zip = zipSync(
      Object.fromEntries(Object.entries(vault).map(([p, t]) => [p, new TextEncoder().encode(t)])),
    );
    const fromZip = await summaryOf(await upload("lead", "from=markdown&apply=true", zip, "application/zip"));
    expect(fromZip).toMatchObject({ records: 2, created: 2, refused: [] });
    // The one folder holding the vault is not part of the slots; other files are reported.
    expect(fromZip.problems.map((p) => p.where)).toContain("attachments/diagram.png");
    await caughtUp("lead", fromZip.position);
    const written = await exported("lead");
    const release = written.find((r) => r.slot === "release");
    expect(release?.tags).toEqual(["ops"]);
    expect(release?.links).toEqual(["checklist"]);

    const tar = gzipSync(
      createTar([
        { name: "vault/On-call.md", data: "The on-call rota changes every Monday." },
        { name: "vault/Escalation.md", data: "Escalate to the platform lead after 30 minutes. [[On-call]]" },
      ]),
    );
    const fromTar = await summaryOf(
      await upload("lead", "from=markdown&apply=true", tar, "application/gzip"),
    );
    expect(fromTar).toMatchObject({ records: 2, created: 2, refused: [] });
    await caughtUp("lead", fromTar.position);
    expect((await exported("lead")).find((r) => r.slot === "escalation")?.links).toEqual(["on-call"]);

    const graph = [
      { type: "entity", name: "Cairn", entityType: "project", observations: ["Written in TypeScript."] },
      { type: "entity", name: "NATS", entityType: "technology", observations: ["Carries the events."] },
      { type: "relation", from: "Cairn", to: "NATS", relationType: "uses" },
    ]
      .map((line) => JSON.stringify(line))
      .join("\n");
    const fromGraph = await summaryOf(
      await upload("lead", "from=server-memory&apply=true", gzipSync(graph), "application/gzip"),
    );
    expect(fromGraph).toMatchObject({ records: 2, created: 2 });
    await caughtUp("lead", fromGraph.position);
    const cairn = (await exported("lead")).find((r) => r.slot === "cairn");
    expect(cairn?.links).toEqual(["nats"]);
    expect(cairn?.keys).toEqual(expect.arrayContaining(["Cairn", "project"]));
  });

  it("reads an export of one tenant into another and exports the same memories", async () => {
    const created = await suite.rest("admin", "POST", "/v1/memories", {
      slot: "ops/deploy",
      title: "Deploys",
      content: "Deploy the canary first.",
      keys: ["deployment"],
    });
    const { id } = (await created.json()) as { id: string };
    const revised = await suite.rest(
      "admin",
      "PATCH",
      `/v1/memories/${id}`,
      { content: "Deploy the canary first, then the fleet." },
      { "If-Match": '"1"' },
    );
    expect(revised.status).toBe(200);
    const proposal = await suite.rest("admin", "POST", "/v1/proposals", {
      slot: "style/tabs",
      content: "Tabs, not spaces.",
    });
    expect(proposal.status).toBe(201);
    await caughtUp("admin", ((await proposal.json()) as { position: number }).position);
    const file = await (await suite.rest("admin", "GET", "/v1/export")).text();

    const summary = await summaryOf(
      await upload("outsider", "from=cairn&apply=true", file, "application/x-ndjson"),
    );
    expect(summary.refused).toEqual([]);
    expect(summary.created).toBe(summary.records);
    const comparable = (records: Awaited<ReturnType<typeof exported>>) =>
      records
        .map((r) => ({
          tier: r.tier,
          status: r.status,
          slot: r.slot,
          title: r.title,
          content: r.content,
          keys: r.keys,
          texts: r.versions.map((v) => v.content ?? ""),
        }))
        .sort((a, b) => a.slot.localeCompare(b.slot));
    await caughtUp("outsider", summary.position);
    expect(comparable(await exported("outsider"))).toEqual(comparable(await exported("admin")));
  });

  it("refuses files too large, damaged or of the wrong kind with stable codes", async () => {
    const big = await problemOf(
      await upload("alice", "from=mem0", "x".repeat(limits.maxBytes + 1), "application/json"),
      413,
    );
    expect(big.code).toBe("too_large");
    expect(big.detail).toContain(String(limits.maxBytes));

    // A small archive that unpacks past the limit: refused before it is inflated.
    const bomb = zipSync({ "big.md": new Uint8Array(limits.maxUnpackedBytes + 1).fill(97) }, { level: 9 });
    expect(bomb.length).toBeLessThan(limits.maxBytes);
    const inflated = await problemOf(await upload("alice", "from=markdown", bomb, "application/zip"), 413);
    expect(inflated.details?.reason).toBe("archive_too_large");

    const notJson = await problemOf(
      await upload("alice", "from=mem0", "memories: yes", "application/json"),
      422,
    );
    expect(notJson).toMatchObject({ code: "validation_failed", details: { reason: "unreadable_file" } });
    expect(notJson.hint).toContain("mem0");

    const damaged = new Uint8Array([0x50, 0x4b, 0x03, 0x04, ...new Array(64).fill(7)]);
    const broken = await problemOf(await upload("alice", "from=markdown", damaged, "application/zip"), 422);
    expect(broken.details?.reason).toBe("unreadable_archive");

    const zipForMem0 = zipSync({ "export.json": new TextEncoder().encode(mem0File) });
    const wrongKind = await problemOf(await upload("alice", "from=mem0", zipForMem0, "application/zip"), 422);
    expect(wrongKind.details?.reason).toBe("archive_not_expected");

    const empty = await problemOf(await upload("alice", "from=mem0", "", "application/json"), 422);
    expect(empty.details?.reason).toBe("no_file");

    const format = await problemOf(await upload("alice", "from=evernote", "{}", "application/json"), 422);
    expect(format.code).toBe("validation_failed");

    // Only this route reads files: another write route still takes JSON alone.
    const other = await fetch(`${suite.gw.baseUrl}/v1/memories`, {
      method: "POST",
      headers: { authorization: `Bearer ${suite.gw.keys.alice}`, "content-type": "application/zip" },
      body: Buffer.from(zipForMem0),
    });
    expect(other.status).toBe(415);
  });

  it("is described in the OpenAPI document", async () => {
    const document = (await (await fetch(`${suite.gw.baseUrl}/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<
          string,
          { requestBody?: { content: Record<string, unknown> }; responses: Record<string, unknown> }
        >
      >;
    };
    const operation = document.paths["/v1/import"]?.post;
    expect(Object.keys(operation?.requestBody?.content ?? {})).toEqual(
      expect.arrayContaining(["application/zip", "application/x-ndjson", "application/json"]),
    );
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(["200", "413", "422"]));
  });
});

import type { CairnExportRecord } from "@cairn/contracts";
import { isCairnError, MemoryInputSchema, sealText } from "@cairn/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cairnExportRecord } from "./cairn-export-record.ts";
import { cairnExportLines, encodeCairnExport, importCairnExport, parseCairnExport } from "./cairn-jsonl.ts";
import { importSteps } from "./import-plan.ts";
import {
  sampleDocument,
  sampleEvent,
  sampleHeader,
  sampleRecord,
  uuidFor,
} from "./testing/sample-records.ts";

const odd = [
  sampleRecord({
    slot: "用户-偏好",
    title: '喜欢 "乌龙茶" 🍵',
    content:
      "喜欢 \"乌龙茶\" 🍵\nline two with a \u2028 line separator and a tab\t, backslash \\ and 'quotes'",
    tags: ["中文", "emoji 🎉"],
    aliases: ["tea-preference"],
    keys: ["茶", "tea"],
    links: ["project-build"],
    project: "cairn",
    source: "chat:42",
    validFrom: "2026-01-01T00:00:00.000Z",
    invalidAt: "2027-01-01T00:00:00.000Z",
    verifiedAt: "2026-06-01T00:00:00.000Z",
  }),
  sampleRecord({
    status: "deleted",
    purged: true,
    title: "",
    content: "",
    versions: [
      { version: 1, type: "memory.recorded", at: "2026-11-01T10:00:00.000Z", agent: "a" },
      { version: 2, type: "memory.deleted", at: "2026-11-02T10:00:00.000Z", agent: "a" },
      { version: 3, type: "memory.purged", at: "2026-11-03T10:00:00.000Z", agent: "maintenance" },
    ],
  }),
];

describe("encode and parse", () => {
  it("gives back the same header and records", () => {
    const text = encodeCairnExport(sampleHeader, odd);
    expect(text.split("\n")).toHaveLength(odd.length + 3); // header, records, the end line and the final newline
    expect(text).not.toContain("\u2028");
    const parsed = parseCairnExport(text);
    expect(parsed.errors).toEqual([]);
    expect(parsed.header).toEqual(sampleHeader);
    expect(parsed.records).toEqual(odd);
    expect(parsed.recordLines).toEqual([2, 3]);
    expect(parsed.end).toEqual({ end: true, records: 2, complete: true });
  });

  it("round-trips any text in any field", () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            content: fc.string({ unit: "grapheme" }),
            title: fc.string(),
            tags: fc.array(fc.string({ unit: "binary" }), { maxLength: 4 }),
            source: fc.option(fc.string({ unit: "binary" })),
          }),
          { maxLength: 5 },
        ),
        (fields) => {
          const records = fields.map((f, i) => sampleRecord({ ...f, id: uuidFor(i + 1) }));
          const parsed = parseCairnExport(encodeCairnExport(sampleHeader, records));
          expect(parsed.errors).toEqual([]);
          expect(parsed.records).toEqual(records);
        },
      ),
    );
  });

  it("streams the same lines as the whole string", async () => {
    async function* records() {
      yield* odd;
    }
    let streamed = "";
    for await (const line of cairnExportLines(sampleHeader, records())) streamed += line;
    expect(streamed).toBe(encodeCairnExport(sampleHeader, odd));
  });

  it("ends with an end line; a stream that fails part way says so in it", async () => {
    const whole = encodeCairnExport(sampleHeader, odd).trim().split("\n");
    expect(JSON.parse(whole.at(-1) as string)).toEqual({ end: true, records: odd.length, complete: true });
    expect(parseCairnExport(whole.join("\n")).end).toEqual({
      end: true,
      records: odd.length,
      complete: true,
    });

    async function* failing() {
      yield odd[0] as CairnExportRecord;
      throw new Error("search went away");
    }
    const lines: string[] = [];
    const stream = cairnExportLines(sampleHeader, failing(), {
      onError: (error) => ({
        code: "unavailable",
        message: (error as Error).message,
        hint: "export again shortly",
      }),
    });
    for await (const line of stream) lines.push(line);
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2] as string)).toEqual({
      end: true,
      records: 1,
      complete: false,
      error: { code: "unavailable", message: "search went away", hint: "export again shortly" },
    });
    // Read back: what arrived is imported, and the import says the export was not whole.
    const partial = importCairnExport(lines.join(""), { sourceName: "cut.jsonl" });
    expect(partial.items).toHaveLength(1);
    expect(partial.problems.map((p) => p.message).join("\n")).toContain(
      "the export stopped early after 1 records (unavailable: search went away)",
    );
    // Without onError the failure is thrown, and a file written so far has no end line.
    await expect(async () => {
      for await (const _ of cairnExportLines(sampleHeader, failing())) {
      }
    }).rejects.toThrow("search went away");
    const cut = importCairnExport(lines.slice(0, 2).join(""), { sourceName: "cut.jsonl" });
    expect(cut.problems.map((p) => p.message).join("\n")).toContain("no end line: the export was cut off");
  });

  it("refuses to write an invalid record", () => {
    const bad = sampleRecord({ purged: true });
    try {
      encodeCairnExport(sampleHeader, [bad]);
      expect.unreachable();
    } catch (error) {
      expect(isCairnError(error) && error.code).toBe("validation_failed");
      expect((error as Error).message).toContain("a purged memory carries no title or content");
    }
  });
});

describe("parseCairnExport", () => {
  it("reports a bad line and reads the others", () => {
    const good = sampleRecord({ id: uuidFor(7) });
    const lines = [
      JSON.stringify(sampleHeader),
      "",
      "{not json",
      JSON.stringify({ ...good, tier: "diary" }),
      `${JSON.stringify(good)}\r`,
      JSON.stringify(good),
      JSON.stringify({ ...sampleRecord(), futureField: "ignored" }),
    ];
    const parsed = parseCairnExport(`\uFEFF${lines.join("\n")}`);
    expect(parsed.records.map((r) => r.id)).toEqual([good.id, expect.any(String)]);
    expect(parsed.records[1]).not.toHaveProperty("futureField");
    expect(parsed.recordLines).toEqual([5, 7]);
    expect(parsed.errors.map((e) => e.line)).toEqual([3, 4, 6]);
    expect(parsed.errors[0]!.message).toMatch(/^not JSON/);
    expect(parsed.errors[1]!.message).toMatch(/^tier: /);
    expect(parsed.errors[2]!.message).toBe(`memory ${good.id} is already on line 5; skipped`);
  });

  it("reads records even when the header is missing", () => {
    const record = sampleRecord();
    const parsed = parseCairnExport(JSON.stringify(record));
    expect(parsed.header).toBeNull();
    expect(parsed.records).toEqual([record]);
    expect(parsed.errors).toEqual([{ line: 1, message: "the first line is not a Cairn export header" }]);
  });

  it("stops at a header of another version", () => {
    const parsed = parseCairnExport(
      `${JSON.stringify({ ...sampleHeader, version: 2 })}\n${JSON.stringify(sampleRecord())}`,
    );
    expect(parsed.records).toEqual([]);
    expect(parsed.errors[0]!.message).toMatch(/version 2 is not supported/);
  });
});

describe("importCairnExport", () => {
  const old = sampleRecord({
    id: uuidFor(101),
    slot: "project-db",
    content: "We use MySQL",
    status: "superseded",
    supersededBy: uuidFor(102),
  });
  const current = sampleRecord({
    id: uuidFor(102),
    slot: "project-db",
    content: "We use Postgres, see [[project-build]]",
    links: ["project-build"],
    supersedes: uuidFor(101),
  });
  const archived = sampleRecord({
    id: uuidFor(103),
    slot: "project-db",
    content: "An old note",
    status: "archived",
  });
  const proposal = sampleRecord({
    id: uuidFor(104),
    tier: "proposal",
    status: "promoted",
    slot: "team-style",
    content: "Prefer small PRs",
    promotedTo: uuidFor(105),
  });
  const promoted = sampleRecord({
    id: uuidFor(105),
    slot: "team-style",
    content: "Prefer small PRs!",
    promotedFrom: uuidFor(104),
  });
  const purged = odd[1]!;
  const twin = sampleRecord({
    id: uuidFor(106),
    slot: "project-db",
    content: "Another memory on the same slot",
    agent: "codex",
  });

  function plan(records: CairnExportRecord[]) {
    return importCairnExport(encodeCairnExport(sampleHeader, records), { sourceName: "cairn.jsonl" });
  }

  it("writes every memory back with its fields, status and successions", () => {
    const result = plan([current, old, archived, proposal, promoted, purged]);
    // The superseded memory is moved before the memory that supersedes it.
    expect(result.items.map((i) => i.originalId)).toEqual([
      old.id,
      current.id,
      archived.id,
      proposal.id,
      promoted.id,
    ]);
    for (const item of result.items) expect(MemoryInputSchema.safeParse(item.memory).success).toBe(true);
    const byId = new Map(result.items.map((i) => [i.originalId, i]));
    expect(byId.get(current.id)).toMatchObject({
      sourceRef: "cairn.jsonl:2",
      tier: "memory",
      links: ["project-build"],
      successorOf: { originalId: old.id, via: "supersede" },
      agent: "claude-code",
      memory: { slot: "project-db", content: current.content, kind: "note", scope: "team" },
    });
    expect(byId.get(current.id)).not.toHaveProperty("status");
    expect(byId.get(old.id)?.status).toBe("superseded");
    expect(byId.get(archived.id)?.status).toBe("archived");
    expect(byId.get(archived.id)?.memory.slot).toBe("project-db");
    expect(byId.get(promoted.id)?.successorOf).toEqual({ originalId: proposal.id, via: "promote" });
    expect(result.problems).toEqual([
      { where: "cairn.jsonl:7", message: `memory ${purged.id} was purged; nothing left to import` },
    ]);

    expect(importSteps(result).map((s) => [s.action, s.item.originalId])).toEqual([
      ["create", old.id],
      ["supersede", current.id],
      ["create", archived.id],
      ["set_status", archived.id],
      ["create", proposal.id],
      ["promote", promoted.id],
    ]);
  });

  it("archives a superseded memory whose replacement is not in the file", () => {
    const result = plan([old]);
    expect(result.items[0]?.status).toBe("archived");
    expect(result.problems).toEqual([
      {
        where: "cairn.jsonl:2",
        message: "superseded, but what replaced it is not in this import; archived instead",
      },
    ]);
  });

  it("gives a second active memory of the same slot a suffix", () => {
    const result = plan([current, twin]);
    expect(result.items.map((i) => i.memory.slot)).toEqual([
      "project-db",
      expect.stringMatching(/^project-db-[0-9a-f]{8}$/),
    ]);
    expect(result.problems.map((p) => p.message)).toEqual([
      expect.stringMatching(/^slot project-db is already used by another record of this import/),
      expect.stringMatching(/^succeeds .*, which is not in this import; written on its own$/),
    ]);
  });

  it("is deterministic", () => {
    const text = encodeCairnExport(sampleHeader, [current, old, archived, proposal, promoted, purged, twin]);
    expect(importCairnExport(text)).toEqual(importCairnExport(text));
  });
});

describe("cairnExportRecord", () => {
  it("lists every version, with text only where it changed", () => {
    const doc = sampleDocument();
    const record = cairnExportRecord(doc, [
      sampleEvent(3, "memory.revised", { tags: ["tooling"] }, "codex"),
      sampleEvent(1, "memory.recorded", { title: "We use npm", content: "We use npm" }),
      sampleEvent(2, "memory.revised", {
        title: "We use pnpm",
        content: "We use pnpm with a catalog: [[project-build]]",
      }),
    ]);
    expect(record).toMatchObject({
      id: doc.id,
      slot: doc.slot,
      content: doc.content,
      purged: false,
      links: ["project-build"],
    });
    expect(record.versions).toEqual([
      {
        version: 1,
        type: "memory.recorded",
        at: "2026-11-01T10:00:00.000Z",
        agent: "claude-code",
        title: "We use npm",
        content: "We use npm",
      },
      {
        version: 2,
        type: "memory.revised",
        at: "2026-11-02T10:00:00.000Z",
        agent: "claude-code",
        title: "We use pnpm",
        content: "We use pnpm with a catalog: [[project-build]]",
      },
      { version: 3, type: "memory.revised", at: "2026-11-03T10:00:00.000Z", agent: "codex" },
    ]);
    expect(parseCairnExport(encodeCairnExport(sampleHeader, [record])).records).toEqual([record]);
  });

  it("keeps no text of a purged memory", () => {
    const doc = sampleDocument({
      status: "deleted",
      content: "",
      title: "",
      purgedAt: "2026-11-05T00:00:00.000Z",
    });
    const record = cairnExportRecord(doc, [
      sampleEvent(1, "memory.recorded", { title: "cairn-sealed:v1:xx", content: "cairn-sealed:v1:yy" }),
      sampleEvent(2, "memory.deleted", { reason: null }),
      sampleEvent(3, "memory.purged", { reason: "erasure", runId: null }),
    ]);
    expect(record.purged).toBe(true);
    expect(record.content).toBe("");
    expect(record.versions.every((v) => v.title === undefined && v.content === undefined)).toBe(true);
  });

  it("refuses sealed text and events of other streams", () => {
    const sealed = sealText(new Uint8Array(32), uuidFor(1), "secret");
    expect(() =>
      cairnExportRecord(sampleDocument(), [
        sampleEvent(1, "memory.recorded", { title: "t", content: sealed }),
      ]),
    ).toThrow(/still sealed/);
    expect(() => cairnExportRecord(sampleDocument(), [sampleEvent(1, "key.created", {})])).toThrow(
      /does not belong/,
    );
  });
});

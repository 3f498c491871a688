import { MemoryInputSchema, normaliseSlot } from "@cairn/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { exportMarkdownVault, fileStemForSlot, markdownFileNames, parseMarkdownVault } from "./markdown.ts";
import { fixtureVault } from "./testing/fixtures.ts";
import { sampleRecord, uuidFor } from "./testing/sample-records.ts";

const records = [
  sampleRecord({
    id: uuidFor(1),
    slot: "project/build",
    kind: "decision",
    title: 'Build: "pnpm" first',
    content:
      "Build with [[Project Package-Manager]] and [[ops:deploy]].\n\n---\nkey: value\n# not a heading of the file",
    links: ["project-package-manager", "ops:deploy"],
    tags: ["tooling", "null", "true", "123", "c++", "a: b"],
    aliases: ["build"],
    keys: ["pnpm", "构建"],
    project: "yes",
    source: "chat:1",
    validFrom: "2026-01-01T00:00:00.000Z",
    invalidAt: "2027-01-01T00:00:00.000Z",
  }),
  sampleRecord({
    id: uuidFor(2),
    slot: "ops:deploy",
    content: 'Deploy on Fridays 🚀, never on "Mondays"',
    scope: "agent",
  }),
  sampleRecord({ id: uuidFor(3), slot: "用户/偏好", content: "喜欢乌龙茶\n第二行", tags: ["中文"] }),
  sampleRecord({
    id: uuidFor(4),
    slot: "project-package-manager",
    content: "We use pnpm",
    links: ["project/build", "missing-slot"],
  }),
  sampleRecord({
    id: uuidFor(5),
    tier: "handoff",
    status: "completed",
    slot: "handoff-release",
    content: "Release handed over",
  }),
];

describe("exportMarkdownVault → parseMarkdownVault", () => {
  const files = exportMarkdownVault(records);

  it("writes one file per memory, named from its slot", () => {
    expect(files.map((f) => f.path)).toEqual([
      "handoff-release.md",
      "ops-deploy.md",
      "project-package-manager.md",
      "project/build.md",
      "用户/偏好.md",
    ]);
    const build = files.find((f) => f.path === "project/build.md")!.text;
    expect(build.startsWith("---\nid: 00000000-0000-4000-8000-000000000001\nslot: project/build\n")).toBe(
      true,
    );
    expect(build).toContain("\n---\nBuild with [[Project Package-Manager]] and [[ops:deploy]].\n");
    expect(build).not.toContain("## Links");
  });

  it("lists links the content does not write, pointing at their files", () => {
    const text = files.find((f) => f.path === "project-package-manager.md")!.text;
    expect(
      text.endsWith(
        "We use pnpm\n\n<!-- cairn:links -->\n## Links\n\n- [[project/build]]\n- [[missing-slot]]\n",
      ),
    ).toBe(true);
    const deployLink = exportMarkdownVault([
      sampleRecord({ id: uuidFor(9), slot: "x", content: "plain", links: ["ops:deploy"] }),
      records[1]!,
    ]).find((f) => f.path === "x.md")!.text;
    expect(deployLink).toContain("- [[ops-deploy|ops:deploy]]\n");
  });

  it("gives back slot, content, title, labels, links and status", () => {
    const plan = parseMarkdownVault(files);
    expect(plan.problems).toEqual([]);
    const byId = new Map(plan.items.map((i) => [i.originalId, i]));
    for (const record of records) {
      const item = byId.get(record.id)!;
      expect(MemoryInputSchema.safeParse(item.memory).success).toBe(true);
      expect(item.memory).toEqual({
        slot: record.slot,
        kind: record.kind,
        content: record.content,
        title: record.title,
        tags: record.tags,
        aliases: record.aliases,
        keys: record.keys,
        scope: record.scope,
        project: record.project,
        source: record.source,
        validFrom: record.validFrom,
      });
      expect(item.links).toEqual(record.links.map(normaliseSlot));
      expect(item.tier).toBe(record.tier);
      expect(item.status).toBe(record.status === "active" ? undefined : record.status);
      expect(item.invalidAt).toBe(record.invalidAt ?? undefined);
      expect(item.agent).toBe(record.agent);
    }
  });

  it("keeps a succession through the front matter", () => {
    const old = sampleRecord({
      id: uuidFor(20),
      slot: "db",
      content: "MySQL",
      status: "superseded",
      supersededBy: uuidFor(21),
    });
    const now = sampleRecord({ id: uuidFor(21), slot: "db", content: "Postgres", supersedes: uuidFor(20) });
    const plan = parseMarkdownVault(exportMarkdownVault([now, old]));
    expect(plan.problems).toEqual([]);
    expect(plan.items.map((i) => [i.originalId, i.status, i.successorOf?.originalId])).toEqual([
      [old.id, "superseded", undefined],
      [now.id, undefined, old.id],
    ]);
  });

  it("writes nothing for a purged memory", () => {
    const purged = sampleRecord({ purged: true, content: "", title: "", versions: [], status: "deleted" });
    expect(exportMarkdownVault([purged])).toEqual([]);
  });
});

describe("file names", () => {
  it("resolve collisions: the current memory keeps the plain name, the others a suffix from their id", () => {
    const current = sampleRecord({ id: uuidFor(31), slot: "db", createdAt: "2026-11-05T00:00:00.000Z" });
    const older = sampleRecord({ id: uuidFor(30), slot: "db", status: "superseded" });
    const private_ = sampleRecord({ id: uuidFor(32), slot: "db", scope: "agent", status: "archived" });
    const colon = sampleRecord({ id: uuidFor(33), slot: "a:b" });
    const dash = sampleRecord({ id: uuidFor(34), slot: "a-b", createdAt: "2026-10-01T00:00:00.000Z" });
    const names = markdownFileNames([older, current, private_, colon, dash]);
    expect(names.get(current.id)).toBe("db.md");
    expect(names.get(older.id)).toMatch(/^db-[0-9a-f]{8}\.md$/);
    expect(names.get(private_.id)).toMatch(/^db-[0-9a-f]{8}\.md$/);
    expect(names.get(older.id)).not.toBe(names.get(private_.id));
    // `a-b` was created first, so it keeps the plain name `a:b` would also get.
    expect(names.get(dash.id)).toBe("a-b.md");
    expect(names.get(colon.id)).toMatch(/^a-b-[0-9a-f]{8}\.md$/);
    // The same records in another order get the same names.
    expect(markdownFileNames([dash, colon, private_, current, older])).toEqual(names);
  });

  it("are safe on every common file system", () => {
    expect(fileStemForSlot("con")).toBe("con_");
    expect(fileStemForSlot("a/../b")).toBe("a/_/b");
    expect(fileStemForSlot("a/.hidden")).toBe("a/hidden");
    expect(fileStemForSlot("notes.md/x")).toBe("notes.md_/x");
    expect(new TextEncoder().encode(fileStemForSlot("汉".repeat(120))).length).toBeLessThanOrEqual(180);
    fc.assert(
      fc.property(fc.string({ maxLength: 120 }), (raw) => {
        const stem = fileStemForSlot(normaliseSlot(raw) || "x");
        return stem.split("/").every((segment) => {
          const bytes = new TextEncoder().encode(segment).length;
          return (
            segment.length > 0 &&
            bytes <= 181 &&
            !/[\\:*?"<>|#^[\]]/.test(segment) &&
            !segment.startsWith(".") &&
            !/[. ]$/.test(segment)
          );
        });
      }),
    );
  });
});

describe("parseMarkdownVault on a KeepM or Obsidian vault", () => {
  const files = fixtureVault("vault");
  const plan = parseMarkdownVault(files);
  const item = (path: string) => plan.items.find((i) => i.sourceRef === path)!;

  it("reads front matter, title and slot from each note", () => {
    expect(plan.items.map((i) => [i.sourceRef, i.memory.slot, i.memory.title])).toEqual([
      ["Broken.md", "broken", "Broken"],
      ["Package Manager.md", "project-package-manager", "Package Manager"],
      ["Projects/Cairn.md", "projects/cairn", "Cairn"],
      ["Tea.md", "tea", "Tea"],
      ["windows.md", "windows", "Windows file"],
    ]);
    expect(item("Projects/Cairn.md").memory).toMatchObject({
      kind: "decision",
      tags: ["project", "typescript"],
      aliases: ["Cairn memory"],
      validFrom: "2024-05-01T00:00:00.000Z",
      source: "Projects/Cairn.md",
    });
    expect(item("Package Manager.md").memory.tags).toEqual(["tooling", "pnpm", "build"]);
    expect(item("windows.md").memory.content).toBe("Line one\nLine two");
    expect(item("Broken.md").memory.content).toBe("The YAML above is broken, the content is still here.");
  });

  it("turns WikiLinks into links, keeping code and pictures as text", () => {
    const cairn = item("Projects/Cairn.md");
    expect(cairn.links).toEqual(["project-package-manager", "tea"]);
    expect(cairn.memory.content).toContain(
      "See [[project-package-manager|Package Manager]] and [[tea|Tea#Morning]] for the rest.",
    );
    expect(cairn.memory.content).toContain("![[diagram.png]]");
    expect(cairn.memory.content).toContain('const notALink = "[[Nowhere]]";');
    expect(item("Tea.md").links).toEqual(["missing-note", "projects/cairn"]);
    expect(item("Tea.md").memory.content).toContain("[[Missing Note]] and [[projects/cairn|Cairn]]");
    expect(item("Package Manager.md").links).toEqual(["projects/cairn"]);
  });

  it("reports what it changed or passed over", () => {
    expect(plan.problems).toEqual([
      {
        where: "Broken.md",
        message: expect.stringMatching(/^the front matter is not valid YAML \(.*\); read as content only$/),
      },
      { where: "attachments/diagram.png", message: "not a Markdown file; skipped" },
      {
        where: "Projects/Cairn.md",
        message: "2 WikiLinks written as [[slot|text]] so that Cairn links to the same notes",
      },
      {
        where: "Tea.md",
        message: "1 WikiLink written as [[slot|text]] so that Cairn links to the same note",
      },
    ]);
  });

  it("gives the same plan whatever order the files come in", () => {
    expect(parseMarkdownVault([...files].reverse())).toEqual(plan);
  });

  it("keeps notes whose names give the same slot apart, and reads odd content", () => {
    const result = parseMarkdownVault([
      { path: "Foo Bar.md", text: "first" },
      { path: "foo_bar.md", text: "second" },
      { path: "nul.md", text: "a\u0000b" },
      { path: "empty.md", text: "---\ntags: x\n---\n\n" },
      { path: "long.md", text: "z".repeat(32_001) },
      {
        path: "aliases.md",
        text: "---\naliases: one, two\ntag: '#solo'\nkind: recipe\ntier: proposal\n---\nbody",
      },
    ]);
    expect(result.items.map((i) => [i.sourceRef, i.memory.slot])).toEqual([
      ["Foo Bar.md", "foo-bar"],
      ["aliases.md", "aliases"],
      ["foo_bar.md", expect.stringMatching(/^foo-bar-[0-9a-f]{8}$/)],
      ["nul.md", "nul"],
    ]);
    expect(result.items[1]).toMatchObject({
      tier: "proposal",
      memory: { aliases: ["one", "two"], tags: ["solo"], kind: "note" },
    });
    expect(result.items[3]?.memory.content).toBe("ab");
    expect(result.problems.map((p) => `${p.where}: ${p.message}`)).toEqual([
      'aliases.md: kind "recipe" is not known; note used',
      expect.stringMatching(/^foo_bar\.md: slot foo-bar is already used/),
      "empty.md: no content; skipped",
      "long.md: content is 32001 characters, over the limit of 32000; skipped (content is never cut)",
      "nul.md: content: removed 1 control character (U+0000)",
    ]);
  });
});

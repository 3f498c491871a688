import { describe, expect, it } from "vitest";
import { splitFrontMatter } from "./front-matter.ts";
import { slotsIngestLinks, wikiLinksOf } from "./wiki-links.ts";

describe("wikiLinksOf", () => {
  it("reads every Obsidian form, outside code only", () => {
    const text = [
      "See [[Note]], [[Folder/Other|shown]], [[Note#Heading]], [[Note^block]] and ![[Pic.png]].",
      "Inline `[[not a link]]` code, then [[After Code.md]].",
      "```",
      "[[in a fence]]",
      "```",
      "~~~~",
      "[[in a tilde fence]]",
      "~~~~",
      "[[#Only a heading]]",
    ].join("\n");
    expect(wikiLinksOf(text).map((l) => [l.note, l.label, l.embed])).toEqual([
      ["Note", undefined, false],
      ["Folder/Other", "shown", false],
      ["Note", undefined, false],
      ["Note", undefined, false],
      ["Pic.png", undefined, true],
      ["After Code", undefined, false],
      ["", undefined, false],
    ]);
  });

  it("knows which slots ingest will read from a content", () => {
    expect(slotsIngestLinks("[[Project X]] [[a|b]] [[Project_X]] [[?]]")).toEqual(["project-x", "a"]);
  });
});

describe("splitFrontMatter", () => {
  it("splits front matter from the body", () => {
    expect(splitFrontMatter("---\ntags: [a]\n---\nbody\n")).toEqual({
      data: { tags: ["a"] },
      body: "body\n",
    });
    expect(splitFrontMatter("---\n---\nbody")).toEqual({ data: {}, body: "body" });
    expect(splitFrontMatter("---\nkind: fix\n...\nbody")).toEqual({ data: { kind: "fix" }, body: "body" });
  });

  it("leaves a file without front matter, or without its closing line, as body", () => {
    expect(splitFrontMatter("just text")).toEqual({ data: null, body: "just text" });
    expect(splitFrontMatter("---\nnot closed")).toEqual({ data: null, body: "---\nnot closed" });
  });

  it("reports front matter that is not a mapping, or repeats a field", () => {
    expect(splitFrontMatter("---\n- a\n---\nbody").error).toBe("the front matter is not a mapping of fields");
    expect(splitFrontMatter("---\na: 1\na: 2\n---\nbody").error).toMatch(
      /^the front matter is not valid YAML/,
    );
  });

  it("keeps dates as text", () => {
    expect(splitFrontMatter("---\ncreated: 2024-05-01\n---\n").data).toEqual({ created: "2024-05-01" });
  });
});

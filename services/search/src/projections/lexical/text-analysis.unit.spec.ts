import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { escapeQueryText, normalizeTag, queryTerms, tagClause } from "./text-analysis.ts";

describe("queryTerms", () => {
  test("splits where RediSearch's tokenizer splits, lower case, once each", () => {
    expect(queryTerms("Deploy the API: node.js, C++ & e-mail/path_to foo_bar")).toEqual([
      "deploy",
      "the",
      "api",
      "node",
      "js",
      "c",
      "e",
      "mail",
      "path_to",
      "foo_bar",
    ]);
    expect(queryTerms("café naïve Straße")).toEqual(["café", "naïve", "straße"]);
  });

  test("segments Chinese with jieba, keeping the other parts of mixed tokens", () => {
    expect(queryTerms("部署流程")).toEqual(["部署", "流程"]);
    expect(queryTerms("v2部署")).toEqual(["v2", "部署"]);
  });

  test("no term can carry query syntax", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        for (const term of queryTerms(text)) {
          expect(term).not.toMatch(/[\s\p{Cc},.<>{}[\]"':;!@#$%^&*()\-+=~|/\\?`]/u);
          expect(term.length).toBeGreaterThan(0);
        }
      }),
    );
  });
});

describe("tag values", () => {
  test("are normalised and escaped so a value stays one value", () => {
    expect(normalizeTag("  Ops, Team\u0000 ")).toBe("ops  team");
    expect(escapeQueryText("a b|c}{@-_")).toBe("a\\ b\\|c\\}\\{\\@\\-\\_");
    expect(tagClause("tags", ["db", "ops} | @tenant:{x"])).toBe("@tags:{db|ops\\}\\ \\|\\ \\@tenant\\:\\{x}");
    expect(tagClause("tags", [",", " "])).toBeNull();
  });

  test("escaping leaves no unescaped ASCII punctuation", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 100 }), (value) => {
        const escaped = escapeQueryText(normalizeTag(value));
        const unescaped = escaped.replace(/\\./gsu, "");
        expect(unescaped).not.toMatch(/[ -/:-@[-`{-~]/u);
      }),
    );
  });
});

import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { escapeQueryText, normalizeTag, tagClause } from "./query-syntax.ts";

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

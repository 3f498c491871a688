import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bm25Score, prepareBm25, queryCoverage, weightedQuery } from "./bm25.ts";

const stats = {
  documents: 100,
  averageLength: 10,
  documentFrequency: new Map([
    ["deploy", 50],
    ["canari", 2],
  ]),
};

describe("BM25", () => {
  it("prefers the rarer term, more occurrences and shorter documents", () => {
    const query = weightedQuery(["deploy", "canari"], []);
    const rare = bm25Score(query, ["canari", "x", "y"], stats);
    const common = bm25Score(query, ["deploy", "x", "y"], stats);
    expect(rare).toBeGreaterThan(common);
    expect(bm25Score(query, ["canari", "canari", "x"], stats)).toBeGreaterThan(rare);
    expect(bm25Score(query, ["canari", ...Array(30).fill("x")], stats)).toBeLessThan(rare);
    expect(bm25Score(query, ["other"], stats)).toBe(0);
  });

  it("weighs expansion terms at half, and covers a query by the idf of what it holds", () => {
    const query = weightedQuery(["canari"], ["deploy"]);
    expect(query).toEqual([
      { term: "deploy", weight: 0.5 },
      { term: "canari", weight: 1 },
    ]);
    expect(queryCoverage(query, new Set(["canari", "deploy"]), stats)).toBe(1);
    expect(queryCoverage(query, new Set(["deploy"]), stats)).toBeLessThan(0.2);
    expect(queryCoverage(query, new Set(), stats)).toBe(0);
  });

  it("scores a document's terms as one string exactly as the list of them", () => {
    // Terms that are prefixes, suffixes and parts of each other, repeated, in any order.
    const term = fc.constantFrom("a", "ab", "abc", "b", "bc", "c", "ca", "部署", "部", "x9", "9");
    fc.assert(
      fc.property(
        fc.array(term, { maxLength: 40 }),
        fc.array(term, { minLength: 1, maxLength: 5 }),
        fc.array(term, { maxLength: 3 }),
        (document, own, expansions) => {
          const frequencies = new Map(["a", "ab", "b", "部署"].map((t, i) => [t, 1 + i * 7]));
          const scorer = prepareBm25(weightedQuery(own, expansions), {
            documents: 50,
            averageLength: 12,
            documentFrequency: frequencies,
          });
          const text = document.join(" ");
          expect(scorer.scoreText(text, document.length)).toBe(scorer.score(document));
          expect(scorer.coverageText(text)).toBe(scorer.coverage(document));
        },
      ),
      { numRuns: 2000 },
    );
  });
});

import { describe, expect, it } from "vitest";
import {
  distinctTopicWords,
  jaccard,
  sentences,
  shingles,
  sketch,
  sketchSimilarity,
  topicWords,
} from "./text-features.ts";

describe("text features", () => {
  it("keeps topic words: lowercased, no stop words, no short words or numbers", () => {
    expect(topicWords("The Deploy pipeline's cache is at 42 GB, and it's fast!")).toEqual([
      "deploy",
      "pipeline",
      "cache",
      "fast",
    ]);
    expect(distinctTopicWords("cache cache Cache hit", 10)).toEqual(["cache", "hit"]);
  });

  it("measures Jaccard similarity of sets", () => {
    expect(jaccard(["a", "b"], ["b", "c"])).toBeCloseTo(1 / 3);
    expect(jaccard([], [])).toBe(0);
    expect(jaccard(new Set([1, 2]), new Set([1, 2]))).toBe(1);
  });

  it("estimates text similarity from bottom-k shingle sketches, exactly for short texts", () => {
    const a = shingles("use pnpm for installs in the monorepo never npm");
    const b = shingles("Use pnpm for installs in the monorepo; never npm!");
    expect(sketchSimilarity(sketch(a), sketch(b))).toBe(1);
    const c = shingles("use yarn for installs in the monorepo never npm");
    const s = sketchSimilarity(sketch(a), sketch(c));
    expect(s).toBeGreaterThan(0.3);
    expect(s).toBeLessThan(1);
    expect(sketchSimilarity([], sketch(a))).toBe(0);
    expect(shingles("two words")).toHaveLength(1);
  });

  it("splits sentences at ends and line breaks", () => {
    expect(sentences("One. Two!  Three?\nFour")).toEqual(["One.", "Two!", "Three?", "Four"]);
  });
});

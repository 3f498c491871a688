import { keyIdFor } from "@cairn/contracts";
import { inferKeyType } from "@cairn/memory-model";
import { describe, expect, it } from "vitest";
import { jaccard, normalizeLabel, topicTerms, trigrams } from "../../text/analyze-text.ts";
import { keyLabelsOf } from "./key-labels.ts";

describe("key labels", () => {
  it("types agent keys by their shape", () => {
    expect(inferKeyType("Python")).toBe("proper_noun");
    expect(inferKeyType("New York")).toBe("proper_noun");
    expect(inferKeyType("user_id")).toBe("name");
    expect(inferKeyType("v2.3")).toBe("name");
    expect(inferKeyType("deploy process")).toBe("concept");
  });
  it("types entities by entity type and drops duplicates after normalisation", () => {
    const labels = keyLabelsOf(
      ["deployments", "Deployment"],
      [
        { text: "Alice", type: "person" },
        { text: "Berlin", type: "place" },
        { text: "caching", type: "term" },
      ],
    );
    expect(labels.map((l) => [l.label, l.type])).toEqual([
      ["deployments", "concept"],
      ["Alice", "name"],
      ["Berlin", "proper_noun"],
      ["caching", "concept"],
    ]);
  });
});

describe("text analysis", () => {
  it("normalises inflections and case", () => {
    expect(normalizeLabel("Job Interviews")).toBe(normalizeLabel("job interview"));
    expect(normalizeLabel("Caroline's")).toBe("carolin");
    expect(topicTerms("The dogs were running in the park")).toEqual(["dog", "run", "park"]);
  });
  it("keeps unspaced scripts as they are", () => {
    expect(normalizeLabel("파이썬")).toBe("파이썬");
    expect(topicTerms("部署流程")).toEqual(["部署", "流程"]);
  });
  it("measures label similarity with trigrams", () => {
    expect(jaccard(trigrams("postgr"), trigrams("postgr"))).toBe(1);
    expect(jaccard(trigrams("kubernet"), trigrams("kubernet cluster"))).toBeGreaterThan(0.4);
    expect(jaccard(trigrams("python"), trigrams("rust"))).toBe(0);
  });
  it("derives stable name-based key ids", () => {
    expect(keyIdFor("t", "Python")).toBe(keyIdFor("t", " python "));
    expect(keyIdFor("t", "python")).not.toBe(keyIdFor("u", "python"));
    expect(keyIdFor("t", "python")).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });
});

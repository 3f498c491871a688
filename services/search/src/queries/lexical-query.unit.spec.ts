import { analyzeText } from "@cairn/text-analysis";
import { describe, expect, test } from "vitest";
import { lexicalText, synonymsFor } from "./lexical-query.ts";

describe("lexicalText", () => {
  test("is the union of the query's analysed terms and the caller's expansions", () => {
    expect(lexicalText("deploying the API", ["kubernetes clusters", "db"], [])).toEqual({
      clause: "(deploy|api|(kubernet cluster)|db)",
      weighted: [
        { term: "kubernet", weight: 0.5 },
        { term: "cluster", weight: 0.5 },
        { term: "db", weight: 0.5 },
        { term: "deploy", weight: 1 },
        { term: "api", weight: 1 },
      ],
      synonymsApplied: [],
    });
  });

  test("punctuation and underscores split words and never reach the syntax", () => {
    expect(lexicalText("_ foo_bar @tenant:{x1}", [], []).clause).toBe("(foo|bar|tenant|x1)");
  });

  test("a query without a searchable term has no lexical clause", () => {
    expect(lexicalText("*** ??? ---", [], []).clause).toBeNull();
    expect(lexicalText("what is it?", [], []).clause).toBeNull();
  });

  test("adds the other members of a synonym group that the query mentions (words or phrases)", () => {
    const groups = [
      ["k8s", "kubernetes"],
      ["postgres", "pg", "postgresql database"],
      ["unrelated", "other"],
    ];
    expect(synonymsFor(analyzeText("upgrade k8s"), groups)).toEqual(["kubernetes"]);
    expect(synonymsFor(analyzeText("postgresql databases tuning"), groups)).toEqual(["postgres", "pg"]);
    expect(lexicalText("pg tuning", [], groups)).toMatchObject({
      clause: "(pg|tune|postgr|(postgresql databas))",
      synonymsApplied: ["postgres", "postgresql database"],
    });
  });
});

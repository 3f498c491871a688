import { analyzeText } from "@cairn/text-analysis";
import { describe, expect, test } from "vitest";
import { lexicalText, rarerClause, synonymsFor } from "./lexical-query.ts";

describe("lexicalText", () => {
  test("is the union of the query's analysed terms and the caller's expansions", () => {
    expect(lexicalText("deploying the API", ["kubernetes clusters", "db"], [])).toEqual({
      clause: "(deploy|api|(kubernet cluster)|db)",
      alternatives: ["deploy", "api", "(kubernet cluster)", "db"],
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

describe("rarerClause", () => {
  const stats = (n: number, df: Record<string, number>) => ({
    documents: n,
    averageLength: 10,
    documentFrequency: new Map(Object.entries(df)),
  });

  test("leaves out a term more than the share of the tenant's memories hold", () => {
    const text = lexicalText("team kafka rebalance", [], []);
    expect(rarerClause(text, stats(100, { team: 60, kafka: 3, rebal: 1 }), 0.25)).toBe("(kafka|rebal)");
    // At the share itself a term is not common yet.
    expect(rarerClause(text, stats(100, { team: 25, kafka: 3 }), 0.25)).toBeNull();
  });

  test("keeps the clause whole when every term is common, or none is", () => {
    expect(
      rarerClause(lexicalText("team agreed", [], []), stats(100, { team: 60, agre: 70 }), 0.25),
    ).toBeNull();
    expect(rarerClause(lexicalText("kafka rebalance", [], []), stats(100, { kafka: 3 }), 0.25)).toBeNull();
  });

  test("keeps a multi-word alternative, whatever its words' frequency", () => {
    const text = lexicalText("team", ["team meeting"], []);
    expect(rarerClause(text, stats(10, { team: 9, meet: 9 }), 0.25)).toBe("((team meet))");
  });

  test("a share of 1 leaves every term in", () => {
    const text = lexicalText("team kafka", [], []);
    expect(rarerClause(text, stats(10, { team: 10, kafka: 1 }), 1)).toBeNull();
  });
});

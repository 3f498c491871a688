import { describe, expect, test } from "vitest";
import { lexicalText, synonymsFor } from "./lexical-query.ts";

describe("lexicalText", () => {
  test("is the union of the query's terms and the caller's expansions", () => {
    expect(lexicalText("deploy the API", ["kubernetes cluster", "db"], [])).toEqual({
      clause: "(deploy|the|api|(kubernetes cluster)|db)",
      synonymsApplied: [],
    });
  });

  test("underscores are escaped (a lone `_` is a syntax error in RediSearch 1.x)", () => {
    expect(lexicalText("_ foo_bar", [], []).clause).toBe("(\\_|foo\\_bar)");
  });

  test("a query without a searchable term has no lexical clause", () => {
    expect(lexicalText("*** ??? ---", [], []).clause).toBeNull();
  });

  test("adds the other members of a synonym group that the query mentions (words or phrases)", () => {
    const groups = [
      ["k8s", "kubernetes"],
      ["postgres", "pg", "postgresql database"],
      ["unrelated", "other"],
    ];
    expect(synonymsFor(["upgrade", "k8s"], groups)).toEqual(["kubernetes"]);
    expect(synonymsFor(["postgresql", "database", "tuning"], groups)).toEqual(["postgres", "pg"]);
    expect(lexicalText("pg tuning", [], groups)).toEqual({
      clause: "(pg|tuning|postgres|(postgresql database))",
      synonymsApplied: ["postgres", "postgresql database"],
    });
  });
});

import { describe, expect, test } from "vitest";
import { bm25Scorer, createIndexCommand, dropIndexCommand } from "./redisearch.ts";

const v1 = { generation: 1, version: 10200 } as const;
const v2 = { generation: 2, version: 80000 } as const;

describe("RediSearch generations", () => {
  test("1.x creates a plain index without term offsets and drops it with its documents", () => {
    expect(createIndexCommand(v1, "idx", "doc:", ["content", "TEXT"])).toEqual([
      "FT.CREATE",
      "idx",
      "NOOFFSETS",
      "STOPWORDS",
      "0",
      "SCHEMA",
      "content",
      "TEXT",
    ]);
    expect(dropIndexCommand(v1, "idx")).toEqual(["FT.DROP", "idx"]);
  });

  test("2.x and later index hashes under a prefix and drop them with DD", () => {
    expect(createIndexCommand(v2, "idx", "doc:", ["content", "TEXT"])).toEqual([
      "FT.CREATE",
      "idx",
      "ON",
      "HASH",
      "PREFIX",
      "1",
      "doc:",
      "NOOFFSETS",
      "STOPWORDS",
      "0",
      "SCHEMA",
      "content",
      "TEXT",
    ]);
    expect(dropIndexCommand(v2, "idx")).toEqual(["FT.DROPINDEX", "idx", "DD"]);
  });

  test("BM25 is asked for by the name the module knows", () => {
    expect(bm25Scorer(v1)).toBe("BM25");
    expect(bm25Scorer({ generation: 2, version: 20_810 })).toBe("BM25");
    expect(bm25Scorer({ generation: 2, version: 80_400 })).toBe("BM25STD");
  });
});

import { describe, expect, it } from "vitest";
import { normalizeLabel } from "../text/analyze-text.ts";
import { understandQuery } from "./understand-query.ts";

const now = new Date("2026-07-10T09:00:00Z");
const asks = (query: string) => understandQuery(query, now).asks;
const times = (query: string, at = now) =>
  understandQuery(query, at).times.map((t) => [
    t.text,
    new Date(t.start).toISOString().slice(0, 10),
    new Date(t.end).toISOString().slice(0, 10),
    t.yearless,
  ]);

describe("understandQuery: the kind of answer", () => {
  it("reads the question word", () => {
    expect(asks("When did Caroline go to the LGBTQ support group?")).toBe("time");
    expect(asks("Where did Jon go for a short trip?")).toBe("place");
    expect(asks("Who gave Melanie the figurines?")).toBe("person");
    expect(asks("whose laptop has the VPN config")).toBe("person");
    expect(asks("Which city have both Jon and Gina visited?")).toBe("place");
    expect(asks("In which country was the conference?")).toBe("place");
    expect(asks("What year did we move to Postgres 16?")).toBe("time");
    expect(asks("How long ago was Caroline's 18th birthday?")).toBe("time");
    expect(asks("so, when was the last deploy?")).toBe("time");
    expect(asks("Do you remember when we rotated the keys?")).toBe("time");
  });

  it("asks for nothing in particular when the question word does not tell", () => {
    expect(asks("What did Caroline research?")).toBeNull();
    expect(asks("How long has Melanie been practicing art?")).toBeNull();
    expect(asks("Why did Gina start her own store?")).toBeNull();
    // "when" inside a question led by another word, and a query that is no question.
    expect(asks("What did we decide when the deploy failed?")).toBeNull();
    expect(asks("deploy steps when tests fail")).toBeNull();
    expect(asks("package manager")).toBeNull();
  });

  it("reads Chinese question words; other languages are matched on their words alone", () => {
    expect(asks("我们什么时候把数据库迁到新集群的？")).toBe("time");
    expect(asks("张伟在哪里工作")).toBe("place");
    expect(asks("谁负责数据库备份？")).toBe("person");
    expect(asks("Quand avons-nous migré la base ?")).toBeNull();
    expect(asks("Wann war das letzte Deployment?")).toBeNull();
  });
});

describe("understandQuery: times and names", () => {
  it("resolves the times a question names against when it is asked", () => {
    expect(times("What did we decide last May?")).toEqual([["last May", "2026-05-01", "2026-06-01", false]]);
    expect(times("What did we decide last May?", new Date("2026-03-01T12:00:00Z"))).toEqual([
      ["last May", "2025-05-01", "2025-06-01", false],
    ]);
    expect(times("What broke two weeks ago?")).toEqual([
      ["two weeks ago", "2026-06-23", "2026-06-30", false],
    ]);
    expect(times("which incidents in 2022")).toEqual([["in 2022", "2022-01-01", "2023-01-01", false]]);
    expect(times("what did I note yesterday")).toEqual([["yesterday", "2026-07-09", "2026-07-10", false]]);
    expect(times("When did Melanie go camping in June?")).toEqual([
      ["June", "2026-06-01", "2026-07-01", true],
    ]);
    expect(times("What painting did Melanie show on October 13, 2023?")).toEqual([
      ["October 13, 2023", "2023-10-13", "2023-10-14", false],
    ]);
  });

  it("keeps the question's word sequences in the form labels are compared in", () => {
    const { grams } = understandQuery("What did Mary Jane tell Caroline's team?", now);
    expect(grams.has(normalizeLabel("Caroline"))).toBe(true);
    expect(grams.has(normalizeLabel("Mary Jane"))).toBe(true);
  });

  it("answers odd input without failing", () => {
    expect(understandQuery("", now)).toMatchObject({ asks: null, times: [] });
    expect(understandQuery("", now).grams.size).toBe(0);
    expect(understandQuery("???", now)).toMatchObject({ asks: null, times: [] });
    const long = understandQuery(`When ${"did the deploy fail and ".repeat(10_000)}why?`, now);
    expect(long.asks).toBe("time");
    expect(long.grams.size).toBeGreaterThan(0);
  });
});

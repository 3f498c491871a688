import { describe, expect, it } from "vitest";
import { mentionOverlaps, type TimeMention, timeMentions } from "./time-mentions.ts";

/** A Monday afternoon, UTC. */
const monday = new Date("2023-07-17T14:00:00Z");
const day = (iso: string) => Date.parse(`${iso}T00:00:00Z`);

/** Each mention as [text, first day, day after the last, grain, yearless]. */
function read(text: string, reference = monday) {
  return timeMentions(text, reference).map((m) => [
    m.text,
    new Date(m.start).toISOString().slice(0, 10),
    new Date(m.end).toISOString().slice(0, 10),
    m.grain,
    m.yearless,
  ]);
}

describe("timeMentions", () => {
  it("resolves relative times against the reference, at the grain they name", () => {
    expect(read("I went to a support group yesterday and it was so powerful.")).toEqual([
      ["yesterday", "2023-07-16", "2023-07-17", "day", false],
    ]);
    expect(read("Last week I went to a pride parade.")).toEqual([
      ["Last week", "2023-07-07", "2023-07-14", "week", false],
    ]);
    expect(read("We moved here two weeks ago")).toEqual([
      ["two weeks ago", "2023-06-30", "2023-07-07", "week", false],
    ]);
    expect(read("Next month I'm having an art show")).toEqual([
      ["Next month", "2023-08-01", "2023-09-01", "month", false],
    ]);
    expect(read("We had a blast last year at the Pride fest")).toEqual([
      ["last year", "2022-01-01", "2023-01-01", "year", false],
    ]);
    expect(read("Last Fri I finally took my kids to a pottery workshop")).toEqual([
      ["Last Fri", "2023-07-14", "2023-07-15", "day", false],
    ]);
  });

  it("reads a year after a preposition and a month after last, this or next", () => {
    expect(read("I have been painting since 2016.")).toEqual([
      ["since 2016", "2016-01-01", "2017-01-01", "year", false],
    ]);
    expect(read("What did we ship in 2022?")).toEqual([
      ["in 2022", "2022-01-01", "2023-01-01", "year", false],
    ]);
    // "Last May" is the most recent May before the current month: this year's in July, last
    // year's in March.
    expect(read("the offsite last May")).toEqual([["last May", "2023-05-01", "2023-06-01", "month", false]]);
    expect(read("the offsite last May", new Date("2023-03-02T09:00:00Z"))).toEqual([
      ["last May", "2022-05-01", "2022-06-01", "month", false],
    ]);
    expect(read("next Sept we move offices")).toEqual([
      ["next Sept", "2023-09-01", "2023-10-01", "month", false],
    ]);
  });

  it("reads dates written in many formats", () => {
    expect(read("Signed on 8 May, 2023.")).toEqual([
      ["on 8 May, 2023", "2023-05-08", "2023-05-09", "day", false],
    ]);
    expect(read("released 2023-05-08")).toEqual([["2023-05-08", "2023-05-08", "2023-05-09", "day", false]]);
    expect(read("due 05/08/2023")).toEqual([["05/08/2023", "2023-05-08", "2023-05-09", "day", false]]);
    expect(read("on May 8th 2021 the cluster moved")).toEqual([
      ["May 8th 2021", "2021-05-08", "2021-05-09", "day", false],
    ]);
    expect(read("We shipped it in May 2023")).toEqual([
      ["May 2023", "2023-05-01", "2023-06-01", "month", false],
    ]);
    expect(read("from May to July 2023")).toEqual([
      ["May to July 2023", "2023-05-01", "2023-08-01", "month", false],
    ]);
  });

  it("marks a month or day named without its year as any year's", () => {
    expect(read("When did Melanie go camping in June?")).toEqual([
      ["June", "2023-06-01", "2023-07-01", "month", true],
    ]);
    const june = timeMentions("in June", monday)[0] as TimeMention;
    expect(mentionOverlaps(june, { start: day("2019-06-20"), end: day("2019-06-21") })).toBe(true);
    expect(mentionOverlaps(june, { start: day("2019-07-20"), end: day("2019-07-21") })).toBe(false);
    const lastYear = timeMentions("last year", monday)[0] as TimeMention;
    expect(mentionOverlaps(lastYear, { start: day("2022-11-02"), end: day("2022-11-03") })).toBe(true);
    expect(mentionOverlaps(lastYear, { start: day("2023-01-02"), end: day("2023-01-03") })).toBe(false);
  });

  it("reads Chinese and Japanese dates", () => {
    expect(read("昨天我们把数据库迁到了新集群")).toEqual([
      ["昨天", "2023-07-16", "2023-07-17", "day", false],
    ]);
    expect(read("发布日期是2023年5月8日")).toEqual([
      ["2023年5月8日", "2023-05-08", "2023-05-09", "day", false],
    ]);
    expect(read("昨日、東京に行きました")).toEqual([["昨日", "2023-07-16", "2023-07-17", "day", false]]);
  });

  it("leaves out words that only look like times", () => {
    expect(read("The sun was out and I sat by the lake")).toEqual([]);
    expect(read("I've been painting seven years now")).toEqual([]);
    expect(read("Call me at 3pm, or tonight's fine too")).toEqual([
      ["tonight", "2023-07-17", "2023-07-18", "day", false],
    ]);
    expect(read("I may go, order 20222 shipped, version 2022.3 is out")).toEqual([]);
  });

  it("answers odd input without failing", () => {
    expect(timeMentions("", monday)).toEqual([]);
    expect(timeMentions("   \n\t", monday)).toEqual([]);
    expect(timeMentions("yesterday", new Date(Number.NaN))).toEqual([]);
    expect(read("⚠️ 🚀 ∑∫ \u0000 yesterday")).toEqual([
      ["yesterday", "2023-07-16", "2023-07-17", "day", false],
    ]);
    // A long text: only its beginning is read, and the mentions kept are bounded.
    const long = `${"yesterday and last week. ".repeat(400)}${"x".repeat(50_000)} in 2019`;
    const mentions = timeMentions(long, monday);
    expect(mentions.length).toBe(16);
    expect(mentions.some((m) => m.text === "in 2019")).toBe(false);
  });

  it("is deterministic: the same text and reference give the same mentions", () => {
    const text = "Last week we deployed; next month we migrate; in 2021 we started.";
    expect(timeMentions(text, monday)).toEqual(timeMentions(text, new Date(monday.getTime())));
  });
});

import { describe, expect, it } from "vitest";
import { cleanContent, cleanLabel, cleanLabels, cleanTimestamp } from "./clean-text.ts";

function collect(): { report: (m: string) => void; messages: string[] } {
  const messages: string[] = [];
  return { report: (m) => messages.push(m), messages };
}

describe("cleanContent", () => {
  it("removes NUL and other control characters, keeps tabs and line breaks, and says so", () => {
    const { report, messages } = collect();
    expect(cleanContent("a\u0000b\tc\nd\u0007e\u009bf", report)).toBe("ab\tc\ndef");
    expect(messages).toEqual(["content: removed 3 control characters (U+0000, U+0007, U+009B)"]);
  });

  it("removes terminal colour sequences whole", () => {
    const { report, messages } = collect();
    expect(cleanContent("\u001b[31mred\u001b[0m text", report)).toBe("red text");
    expect(messages).toEqual(["content: removed 2 terminal escape sequences"]);
  });

  it("replaces unpaired surrogates and keeps emoji", () => {
    const { report, messages } = collect();
    expect(cleanContent("ok 😀 \ud800 end", report)).toBe("ok 😀 \ufffd end");
    expect(messages).toEqual(["content: replaced 1 unpaired surrogate with U+FFFD"]);
  });

  it("turns Windows line ends into \\n without a report, and leaves clean text alone", () => {
    const { report, messages } = collect();
    expect(cleanContent("a\r\nb\rc", report)).toBe("a\nb\nc");
    expect(cleanContent("中文 \"quotes\" 'single' 🎉", report)).toBe("中文 \"quotes\" 'single' 🎉");
    expect(messages).toEqual([]);
  });
});

describe("labels", () => {
  it("are made one line and cut to their limit with a report", () => {
    const { report, messages } = collect();
    expect(cleanLabel("  a\n\tb  ", 10, "tag", report)).toBe("a b");
    expect(cleanLabel("x".repeat(70), 64, "tag", report)).toBe("x".repeat(64));
    expect(messages).toEqual([`tag "${"x".repeat(40)}…" cut to 64 characters`]);
  });

  it("drop repeats and empties, and report what is over the count", () => {
    const { report, messages } = collect();
    const tags = cleanLabels(
      ["A", "a", " ", "b", "c", "d"],
      { maxChars: 64, maxCount: 2, what: "tag", lowerCase: true },
      report,
    );
    expect(tags).toEqual(["a", "b"]);
    expect(messages).toEqual(['2 tags over the limit of 2 dropped: "c", "d"']);
  });

  it("say aliases, not aliass", () => {
    const { report, messages } = collect();
    cleanLabels(["a", "b"], { maxChars: 64, maxCount: 1, what: "alias" }, report);
    expect(messages[0]).toMatch(/^1 alias over/);
    cleanLabels(["a", "b", "c"], { maxChars: 64, maxCount: 1, what: "alias" }, report);
    expect(messages[1]).toMatch(/^2 aliases over/);
  });
});

describe("cleanTimestamp", () => {
  it("reads the time forms foreign formats write, as UTC", () => {
    const { report, messages } = collect();
    expect(cleanTimestamp("2024-07-20T10:12:03.123456-07:00", "t", report)).toBe("2024-07-20T17:12:03.123Z");
    expect(cleanTimestamp("2024-07-23T12:00:00", "t", report)).toBe("2024-07-23T12:00:00.000Z");
    expect(cleanTimestamp("2024-07-16", "t", report)).toBe("2024-07-16T00:00:00.000Z");
    expect(cleanTimestamp(1751000000.25, "t", report)).toBe("2025-06-27T04:53:20.250Z");
    expect(cleanTimestamp(1751000000250, "t", report)).toBe("2025-06-27T04:53:20.250Z");
    expect(cleanTimestamp(null, "t", report)).toBeNull();
    expect(messages).toEqual([]);
  });

  it("reports what is not a time", () => {
    const { report, messages } = collect();
    expect(cleanTimestamp("not a date", "created_at", report)).toBeNull();
    expect(cleanTimestamp(1e300, "ttl", report)).toBeNull();
    expect(cleanTimestamp({ a: 1 }, "ttl", report)).toBeNull();
    expect(messages).toHaveLength(3);
    expect(messages[0]).toBe('created_at: "not a date" is not a time; left out');
  });
});

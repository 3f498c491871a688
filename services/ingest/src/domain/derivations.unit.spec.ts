import { describe, expect, test } from "vitest";
import { extractEntities } from "./entities.ts";
import { extractLinks } from "./links.ts";
import { contentHash, normaliseLabels, normaliseSlot, titleFromContent } from "./normalise.ts";
import { sentimentOf } from "./sentiment.ts";

describe("slot names", () => {
  test.each([
    ["Project Package-Manager", "project-package-manager"],
    ["project_package_manager", "project-package-manager"],
    ["ｐｒｏｊｅｃｔ－ｐａｃｋａｇｅ", "project-package"],
    ["  --Release   Process--  ", "release-process"],
    ["api/v2:auth", "api/v2:auth"],
    ["项目 包管理器", "项目-包管理器"],
    ["Ｃａｆé", "café"],
    ["!!!", ""],
  ])("%s → %s", (raw, slot) => {
    expect(normaliseSlot(raw)).toBe(slot);
  });

  // Built from code points so that each case shows which letters are not Latin.
  const cyrillic = (text: string) => text.replace(/[aceopxyH]/g, (c) => cyrillicLookalike[c] ?? c);
  const cyrillicLookalike: Record<string, string> = {
    a: "\u0430",
    c: "\u0441",
    e: "\u0435",
    o: "\u043e",
    p: "\u0440",
    x: "\u0445",
    y: "\u0443",
    H: "\u041d",
  };

  test.each([
    ["d\u0435ploy (Cyrillic е)", "d\u0435ploy", "deploy"],
    ["раураl (Cyrillic р, а, у)", `${cyrillic("paypa")}l`, "paypal"],
    ["a capital Cyrillic Н folded before lower-casing", "\u041dELLO-world", "hello-world"],
    ["Greek ο and capital Ι", "\u0399nf\u03bf-Page", "info-page"],
    ["each word on its own", `release-${cyrillic("p")}rocess`, "release-process"],
  ])("a mixed-script word is folded to Latin: %s", (_, raw, slot) => {
    expect(normaliseSlot(raw)).toBe(slot);
    expect(normaliseSlot(raw)).toBe(normaliseSlot(slot));
  });

  test.each([
    ["проект", "проект"],
    ["Проект Альфа", "проект-альфа"],
    [cyrillic("pay"), cyrillic("pay")],
    ["λόγος", "λόγος"],
    ["项目 包管理器", "项目-包管理器"],
    ["api/项目", "api/项目"],
    ["проект-deploy", "проект-deploy"],
  ])("a word wholly in one script stays as written: %s", (raw, slot) => {
    expect(normaliseSlot(raw)).toBe(slot);
  });
});

describe("content hash", () => {
  test("ignores Unicode form, case and spacing, and nothing else", () => {
    expect(contentHash("Always run  the tests.\n")).toBe(contentHash("always RUN the tests."));
    expect(contentHash("Ｔｅｓｔ")).toBe(contentHash("test"));
    expect(contentHash("Always run the tests")).not.toBe(contentHash("Always run the tests."));
  });
});

describe("labels and titles", () => {
  test("labels are trimmed and deduplicated case-insensitively", () => {
    expect(normaliseLabels([" Tooling ", "tooling", "", "CI  cd"], { lowerCase: true })).toEqual([
      "tooling",
      "ci cd",
    ]);
    expect(normaliseLabels(["Caching", "caching"])).toEqual(["Caching"]);
  });

  test("a title is the first non-empty line, cut at a word", () => {
    expect(titleFromContent("\n# Deploys\nMore text")).toBe("Deploys");
    const long = titleFromContent(`${"word ".repeat(40)}end`);
    expect(long.endsWith("…")).toBe(true);
    expect(long.length).toBeLessThanOrEqual(121);
  });
});

describe("links", () => {
  test("[[slot]] references, normalised, once each", () => {
    expect(
      extractLinks("See [[Project Layout]], [[project_layout]] and [[Deploys|the deploy notes]]. [[ ]]"),
    ).toEqual(["project-layout", "deploys"]);
  });
});

describe("sentiment", () => {
  test("signed intensity within [-1, 1]", () => {
    expect(sentimentOf("I love this, it is great and wonderful")).toBeGreaterThan(0.5);
    expect(sentimentOf("This is terrible, broken and awful")).toBeLessThan(-0.5);
    expect(sentimentOf("The build runs on Tuesdays.")).toBe(0);
    expect(sentimentOf("我们使用北京的服务器")).toBe(0);
    for (const text of ["good ".repeat(100), "bad ".repeat(100)]) {
      expect(Math.abs(sentimentOf(text))).toBeLessThanOrEqual(1);
    }
  });
});

describe("entities", () => {
  test("people, places, organisations, products, tickers, code and URLs", () => {
    const entities = extractEntities(
      "Alice Smith from Microsoft met Bob Jones in Berlin about $AAPL and $BRK.B. " +
        "They moved from MySQL to PostgreSQL; see https://example.com/docs/setup.html. " +
        "Call parseCommand() in services/ingest/src/main.ts, check maxRetries and retry_limit, run `pnpm bench`.",
    );
    expect(entities).toEqual(
      expect.arrayContaining([
        { text: "Alice Smith", type: "person" },
        { text: "Berlin", type: "place" },
        { text: "Microsoft", type: "organisation" },
        { text: "PostgreSQL", type: "product" },
        { text: "MySQL", type: "product" },
        { text: "$AAPL", type: "ticker" },
        { text: "$BRK.B", type: "ticker" },
        { text: "https://example.com/docs/setup.html", type: "url" },
        { text: "parseCommand()", type: "code" },
        { text: "services/ingest/src/main.ts", type: "code" },
        { text: "maxRetries", type: "code" },
        { text: "retry_limit", type: "code" },
        { text: "pnpm bench", type: "code" },
      ]),
    );
    // A URL is not also read as a path.
    expect(entities.filter((e) => e.text.includes("example.com"))).toHaveLength(1);
  });

  test("Chinese names, places and organisations through jieba", () => {
    const entities = extractEntities("李明在北京的阿里巴巴公司工作，后来去了上海。");
    expect(entities).toEqual(
      expect.arrayContaining([
        { text: "北京", type: "place" },
        { text: "上海", type: "place" },
        { text: "阿里巴巴公司", type: "organisation" },
      ]),
    );
  });

  test("each entity once, and at most 64", () => {
    const many = Array.from({ length: 100 }, (_, i) => `value_${i}`).join(" ");
    expect(extractEntities(many)).toHaveLength(64);
    expect(extractEntities("redis Redis REDIS")).toEqual([{ text: "Redis", type: "product" }]);
  });
});

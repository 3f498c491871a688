import { describe, expect, test } from "vitest";
import { extractEntities } from "./entities.ts";
import { extractLinks } from "./links.ts";
import { contentHash, normaliseLabels, titleFromContent } from "./normalise.ts";
import { sentimentOf } from "./sentiment.ts";

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
    const expected = {
      person: ["Alice Smith"],
      place: ["Berlin"],
      organisation: ["Microsoft"],
      product: ["PostgreSQL", "MySQL"],
      ticker: ["$AAPL", "$BRK.B"],
      url: ["https://example.com/docs/setup.html"],
      code: ["parseCommand()", "services/ingest/src/main.ts", "maxRetries", "retry_limit", "pnpm bench"],
    };
    expect(entities).toEqual(
      expect.arrayContaining(
        Object.entries(expected).flatMap(([type, texts]) => texts.map((text) => ({ text, type }))),
      ),
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

  test("names that open a sentence, sit between sentences of small talk, or carry initials", () => {
    const names = (text: string) =>
      extractEntities(text)
        .filter((e) => e.type === "person" || e.type === "place")
        .map((e) => `${e.type}:${e.text}`);
    expect(names("Thanks for that! Paris was lovely. We should go again.")).toEqual(["place:Paris"]);
    expect(names("Yeah, totally. Melanie called me back today. Anyway, see you.")).toEqual([
      "person:Melanie",
    ]);
    expect(names("Tim: There's a quote by J.K. Rowling that I really like.")).toContain(
      "person:J.K. Rowling",
    );
    // Sentences whose only capital is their first word, or the pronoun I, name nobody.
    expect(names("Wow. I made it with clay. It was great and I loved it.")).toEqual([]);
  });

  test("a greeting is no part of a name; a surname, an initial or a title is", () => {
    const people = (text: string) =>
      extractEntities(text)
        .filter((e) => e.type === "person")
        .map((e) => e.text);
    expect(people("Nate: Thanks Joanna! I'm so glad you liked it.")).toEqual(["Joanna"]);
    expect(people("Calvin: Congrats Dave! You earned it.")).toEqual(["Dave"]);
    expect(people("Lately I've been listening to Frank Ocean on repeat.")).toEqual(["Frank Ocean"]);
    expect(people("I reread all the Harry Potter books this winter.")).toEqual(["Harry Potter"]);
    expect(people("My favourite fantasy author is George R. R. Martin, for sure.")).toContain(
      "George R. R. Martin",
    );
    expect(people("I saw Dr. Dre perform in California.")).toEqual(["Dr. Dre"]);
    // A capitalised word the lexicon knows as no name or plain noun ends the name.
    expect(people("I told Maria Monday that we would come.")).toEqual(["Maria"]);
    // A name is written with a capital: "my buddy" is nobody's.
    expect(people("Joanna: I went hiking with my buddy. Nate, you should come!")).not.toContain("buddy");
  });

  test("a title is read for names only when the content does not already say it", () => {
    // The first line is cut into the title between a first name and a surname.
    const content =
      "We went over the plan for the spring release of the new mobile app with the whole design team, and then late " +
      "Alice Smith joined us from Berlin.\nNothing more.";
    const title = titleFromContent(content);
    expect(title.endsWith("Alice…")).toBe(true);
    const people = (entities: { text: string; type: string }[]) =>
      entities.filter((e) => e.type === "person").map((e) => e.text);
    expect(people(extractEntities(content, title))).toEqual(["Alice Smith"]);
    expect(extractEntities(content, title)).toEqual(extractEntities(content));
    // A title of its own is read with the content.
    expect(people(extractEntities("We met after lunch.", "Lunch with Bob Jones"))).toEqual(["Bob Jones"]);
  });

  test("each entity once, and at most 64", () => {
    const many = Array.from({ length: 100 }, (_, i) => `value_${i}`).join(" ");
    expect(extractEntities(many)).toHaveLength(64);
    expect(extractEntities("redis Redis REDIS")).toEqual([{ text: "Redis", type: "product" }]);
  });
});

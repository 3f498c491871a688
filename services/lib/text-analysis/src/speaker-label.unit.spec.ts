import { describe, expect, it } from "vitest";
import { speakerLabel } from "./speaker-label.ts";

describe("speakerLabel", () => {
  it("names who speaks in a transcript line", () => {
    expect(speakerLabel("Caroline: I went to a LGBTQ support group yesterday.")).toBe("Caroline");
    expect(speakerLabel("Dr. Smith: take two a day")).toBe("Dr. Smith");
    expect(speakerLabel("  User:  which package manager do we use?")).toBe("User");
    expect(speakerLabel("Mary-Jane O’Neil: on my way")).toBe("Mary-Jane O’Neil");
    expect(speakerLabel("Zoë: ça va")).toBe("Zoë");
    expect(speakerLabel("张伟：数据库已经迁移了")).toBe("张伟");
  });

  it("is null for text that is not such a line", () => {
    expect(speakerLabel("")).toBeNull();
    expect(speakerLabel("We use pnpm: it is fast.")).toBeNull();
    expect(speakerLabel("note: lowercase labels are not speakers")).toBeNull();
    expect(speakerLabel("10:30 standup moved")).toBeNull();
    expect(speakerLabel("https://example.com: a link")).toBeNull();
    expect(speakerLabel("The Deploy Pipeline Owner Team: four words")).toBeNull();
    expect(speakerLabel("Caroline:")).toBeNull();
    expect(speakerLabel(`${"A".repeat(60)}: too long to be a name`)).toBeNull();
  });
});

import { limits, normaliseSlot } from "@cairn/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createSlotClaims, slotDomain } from "./slot-claims.ts";
import { cutSlot, cutToLength, slotFromText } from "./slot-name.ts";

describe("normaliseSlot", () => {
  it("gives one form to the spellings ingest treats as one slot", () => {
    expect(normaliseSlot("Project Package-Manager")).toBe("project-package-manager");
    expect(normaliseSlot("project_package_manager")).toBe("project-package-manager");
    expect(normaliseSlot("ｐｒｏｊｅｃｔ－ｐａｃｋａｇｅ")).toBe("project-package");
    expect(normaliseSlot("  --Ops/Deploy:Prod.  ")).toBe("ops/deploy:prod");
    expect(normaliseSlot("项目 包管理")).toBe("项目-包管理");
    expect(normaliseSlot("🚀 launch!")).toBe("launch");
    expect(normaliseSlot("???")).toBe("");
  });

  it("is stable: a canonical slot stays as it is", () => {
    fc.assert(fc.property(fc.string(), (s) => normaliseSlot(normaliseSlot(s)) === normaliseSlot(s)));
  });
});

describe("cutting", () => {
  it("never splits a surrogate pair", () => {
    expect(cutToLength("ab😀", 3)).toBe("ab");
    expect(cutToLength("ab😀", 4)).toBe("ab😀");
  });

  it("leaves no separator at the end of a cut slot", () => {
    expect(cutSlot("abc-def", 4)).toBe("abc");
    expect(cutSlot("a".repeat(200)).length).toBe(limits.slotMaxChars);
  });
});

describe("slotFromText", () => {
  it("takes a prefix and the first words, then a stable suffix from the id", () => {
    const slot = slotFromText("travel", "Alex is planning a trip to San Francisco in July", "id-1");
    expect(slot).toMatch(/^travel-alex-is-planning-a-trip-to-[0-9a-f]{8}$/);
    expect(slotFromText("travel", "Alex is planning a trip to San Francisco in July", "id-1")).toBe(slot);
    expect(slotFromText("travel", "Alex is planning a trip to San Francisco in July", "id-2")).not.toBe(slot);
  });

  it("cuts a script without spaces by characters", () => {
    const slot = slotFromText(null, "用户喜欢在早上喝绿茶用户喜欢在早上喝绿茶用户喜欢在早上喝绿茶", "x", {
      maxChars: 10,
    });
    expect(slot).toMatch(/^用户喜欢在早上喝绿茶-[0-9a-f]{8}$/);
  });

  it("is only the suffix when the text has no letters", () => {
    expect(slotFromText(null, "!!! ???", "x")).toMatch(/^[0-9a-f]{8}$/);
  });

  it("stays within the slot limit and is canonical", () => {
    fc.assert(
      fc.property(
        fc.option(fc.string()),
        fc.string({ maxLength: 500 }),
        fc.string(),
        (prefix, text, seed) => {
          const slot = slotFromText(prefix, text, seed);
          return slot.length <= limits.slotMaxChars && normaliseSlot(slot) === slot && slot.length > 0;
        },
      ),
    );
  });
});

describe("slot claims", () => {
  it("keeps two records of one domain apart with a stable suffix, and reports it", () => {
    const claims = createSlotClaims();
    const messages: string[] = [];
    const domain = slotDomain("memory", "team", null);
    expect(claims.claim("John_Smith", domain, "John_Smith", (m) => messages.push(m))).toBe("john-smith");
    const second = claims.claim("John Smith", domain, "John Smith", (m) => messages.push(m));
    expect(second).toMatch(/^john-smith-[0-9a-f]{8}$/);
    expect(messages).toEqual([
      `slot john-smith is already used by another record of this import; named ${second}`,
    ]);
    // Another project is another domain: no suffix there.
    expect(claims.claim("John Smith", slotDomain("memory", "team", "sales"), "x", () => {})).toBe(
      "john-smith",
    );
  });

  it("names a slot without letters or digits, and cuts a long one", () => {
    const claims = createSlotClaims();
    const messages: string[] = [];
    expect(claims.claim("???", "d", "seed", (m) => messages.push(m))).toMatch(/^imported-[0-9a-f]{8}$/);
    expect(claims.claim("x".repeat(130), "d", "seed", (m) => messages.push(m))).toBe("x".repeat(120));
    expect(messages).toHaveLength(2);
  });
});

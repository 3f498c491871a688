import { describe, expect, test } from "vitest";
import { normaliseSlot } from "./slot.ts";

describe("slot names", () => {
  const canonical = (raw: string, slot: string) => expect(normaliseSlot(raw)).toBe(slot);

  test.each([
    ["Project Package-Manager", "project-package-manager"],
    ["project_package_manager", "project-package-manager"],
    ["ｐｒｏｊｅｃｔ－ｐａｃｋａｇｅ", "project-package"],
    ["  --Release   Process--  ", "release-process"],
    ["api/v2:auth", "api/v2:auth"],
    ["项目 包管理器", "项目-包管理器"],
    ["Ｃａｆé", "café"],
    ["!!!", ""],
  ])("%s → %s", canonical);

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
  ])("a word wholly in one script stays as written: %s", canonical);
});

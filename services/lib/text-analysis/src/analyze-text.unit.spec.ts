import { describe, expect, it } from "vitest";
import { analyzeText, stem, words } from "./analyze-text.ts";

describe("text analysis", () => {
  it("stems, drops function words and lone letters, keeps numbers", () => {
    expect(analyzeText("She's deploying the new deployments on port 5433, isn't it?")).toEqual([
      "deploy",
      "new",
      "deploy",
      "port",
      "5433",
    ]);
    expect(analyzeText("What did Caroline do in May 2023? A 5 k run.")).toEqual([
      "carolin",
      "may",
      "2023",
      "5",
      "run",
    ]);
  });

  it("gives the same terms to a query and a text that say the same", () => {
    expect(analyzeText("Deployments failed")).toEqual(analyzeText("deployment FAILS"));
    expect(stem("running")).toBe(stem("runs"));
  });

  it("folds compatibility forms and cuts Chinese into words", () => {
    expect(words("ｆｕｌｌ width")).toEqual(["full", "width"]);
    const terms = analyzeText("部署流程v2很重要");
    expect(terms).toContain("部署");
    expect(terms).toContain("v2");
  });
});

describe("memory terms", () => {
  it("counts a derived title once and adds the names an agent gave", async () => {
    const { memoryTerms } = await import("./memory-terms.ts");
    expect(
      memoryTerms({
        title: "Deploys go to eu-west",
        content: "Deploys go to eu-west on Tuesdays.",
        slot: "deploy/target_region",
        aliases: ["release target"],
        keys: ["deployment"],
      }),
    ).toEqual([
      "deploy",
      "go",
      "eu",
      "west",
      "tuesday",
      "deploy",
      "target",
      "region",
      "releas",
      "target",
      "deploy",
    ]);
    expect(memoryTerms({ title: "Staging", content: "db-staging-2 on port 5433" })).toEqual([
      "stage",
      "db",
      "stage",
      "2",
      "port",
      "5433",
    ]);
  });
});

describe("terms and query syntax", () => {
  it("are made of letters and digits only, so no user text reaches a query's syntax", async () => {
    const fc = (await import("fast-check")).default;
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), (text) => {
        for (const term of analyzeText(text)) expect(term).toMatch(/^[\p{L}\p{N}\p{M}]+$/u);
      }),
    );
  });
});

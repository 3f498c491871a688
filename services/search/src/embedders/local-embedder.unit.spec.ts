import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { embedLocally } from "./local-embedder.ts";

const cosine = (a: number[], b: number[]) => a.reduce((s, v, i) => s + v * (b[i] as number), 0);
const embed = (t: string) => embedLocally(t, 384);

describe("local embedder", () => {
  test("is deterministic and unit length", () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (text) => {
        const v = embed(text);
        expect(v).toEqual(embed(text));
        expect(v).toHaveLength(384);
        const norm = Math.sqrt(cosine(v, v));
        if (norm > 0) expect(norm).toBeCloseTo(1, 6);
      }),
    );
  });

  test("a typo, an inflection or another case stays closer than an unrelated text", () => {
    const base = embed("deployment of the database migrations");
    const unrelated = cosine(base, embed("orchids need weekly watering"));
    for (const near of [
      "deploymnet of the databse migrations",
      "deploying database migration",
      "DEPLOYMENT OF THE DATABASE MIGRATIONS",
    ]) {
      expect(cosine(base, embed(near))).toBeGreaterThan(unrelated + 0.3);
    }
  });

  test("Chinese text without spaces is matched by its characters", () => {
    const doc = embed("我们的部署流程需要先运行数据库迁移");
    expect(cosine(doc, embed("部署流程"))).toBeGreaterThan(cosine(doc, embed("天气很好")) + 0.2);
  });
});

import { type Principal, type Scope, statuses, tiers } from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import {
  reachedTags,
  reachTags,
  visibilityByFields,
  visibilityTags,
  visibleTags,
} from "../projections/lexical/lexical-index.ts";
import { lexicalReach, lexicalVisibility } from "./visibility.ts";

// Few names, so that tenants and agents often coincide; odd characters, so that encoding counts.
const name = fc.constantFrom("acme", "Acme", "globex", "x", "ax", "a b", "ünï", "t61", "");
const principal: fc.Arbitrary<Principal> = fc.record({
  tenant: name,
  agent: name,
  role: fc.constantFrom("agent", "reviewer", "admin"),
  primary: fc.boolean(),
});
const doc = fc.record({
  tenant: name,
  agent: name,
  scope: fc.constantFrom<Scope>("team", "agent", "global"),
  tier: fc.constantFrom(...tiers),
  status: fc.constantFrom(...statuses),
});

describe("lexical visibility", () => {
  test("a document's visible_to holds one of a principal's values exactly when the memory model lets it see", () => {
    fc.assert(
      fc.property(doc, principal, (d, p) => {
        const seen = visibleTags(p);
        expect(visibilityTags(d).some((t) => seen.includes(t))).toBe(canSee(d, p));
      }),
      { numRuns: 2000 },
    );
  });

  test("a document's reach holds one of the values asked exactly when it is in the tier and a status asked and the principal may see it", () => {
    fc.assert(
      fc.property(
        doc,
        principal,
        fc.constantFrom(...tiers),
        fc.uniqueArray(fc.constantFrom(...statuses), { minLength: 1 }),
        (d, p, tier, asked) => {
          const values = reachedTags(p, tier, asked);
          const reached = reachTags(d).some((t) => values.includes(t));
          expect(reached).toBe(d.tier === tier && asked.includes(d.status) && canSee(d, p));
        },
      ),
      { numRuns: 3000 },
    );
  });

  test("an index of an older version is asked for reach by tier, status and visible_to", () => {
    const bob: Principal = { tenant: "bx", agent: "x", role: "agent", primary: false };
    expect(
      visibilityByFields(
        `@terms:(fern) ${lexicalReach({ ...bob, primary: true }, "memory", ["active", "archived"])}`,
      ),
    ).toBe(
      "@terms:(fern) ((@tier:{memory} @status:{active} ((@scope:{global})))|(@tier:{memory} @status:{active} ((@tenant:{6278})))|(@tier:{memory} @status:{archived} ((@scope:{global})))|(@tier:{memory} @status:{archived} ((@tenant:{6278}))))",
    );
    expect(visibilityByFields(lexicalReach(bob, "handoff", ["completed"]))).toBe(
      "((@tier:{handoff} @status:{completed} ((@scope:{global})))|(@tier:{handoff} @status:{completed} ((@tenant:{6278} @scope:{team})))|(@tier:{handoff} @status:{completed} ((@tenant:{6278} @agent:{78}))))",
    );
  });

  test("an index from before visible_to is asked the same rule by tenant, scope and agent", () => {
    expect(
      visibilityByFields("@terms:(fern) @visible_to:{global|m61636d65|a61636d65x616c696365} @tier:{memory}"),
    ).toBe(
      "@terms:(fern) ((@scope:{global})|(@tenant:{61636d65} @scope:{team})|(@tenant:{61636d65} @agent:{616c696365})) @tier:{memory}",
    );
    expect(visibilityByFields("@visible_to:{global|t61636d65}")).toBe(
      "((@scope:{global})|(@tenant:{61636d65}))",
    );
  });

  test("a memory's links and neighbours are asked in every tier and status the principal may see", () => {
    fc.assert(
      fc.property(doc, principal, (d, p) => {
        const asked = /^@reach:\{(.*)\}$/.exec(lexicalVisibility(p))?.[1]?.split("|") ?? [];
        expect(reachTags(d).some((t) => asked.includes(t))).toBe(canSee(d, p));
      }),
      { numRuns: 2000 },
    );
  });
});

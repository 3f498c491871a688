import type { Principal, Scope } from "@cairn/contracts";
import { canSee } from "@cairn/memory-model";
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { visibilityByFields, visibilityTags, visibleTags } from "../projections/lexical/lexical-index.ts";
import { lexicalVisibility } from "./visibility.ts";

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

  test("an index from before visible_to is asked the same rule by tenant, scope and agent", () => {
    const alice: Principal = { tenant: "acme", agent: "alice", role: "agent", primary: false };
    expect(visibilityByFields(`@terms:(fern) ${lexicalVisibility(alice)} @tier:{memory}`)).toBe(
      "@terms:(fern) ((@scope:{global})|(@tenant:{61636d65} @scope:{team})|(@tenant:{61636d65} @agent:{616c696365})) @tier:{memory}",
    );
    expect(visibilityByFields(lexicalVisibility({ ...alice, primary: true }))).toBe(
      "((@scope:{global})|(@tenant:{61636d65}))",
    );
  });
});

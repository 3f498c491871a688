import { describe, expect, test } from "vitest";
import { reservationChanges, reservationsHeld } from "./reservations.ts";

const doc = {
  tier: "memory" as const,
  status: "active" as const,
  scope: "team" as const,
  tenant: "acme",
  agent: "alice",
  project: null,
  slot: "ci",
  contentHash: "sha256:1",
};

describe("reservations", () => {
  test("an active memory holds its slot and content; an archived one nothing", () => {
    expect(reservationsHeld(doc)).toEqual([
      "slot|acme|memory|team|-|-|ci",
      "content|acme|memory|team|-|sha256:1",
    ]);
    expect(reservationsHeld({ ...doc, status: "archived" })).toEqual([]);
  });

  test("a pending proposal holds only its content; private and global memories have their own domains", () => {
    expect(reservationsHeld({ ...doc, tier: "proposal", status: "pending" })).toEqual([
      "content|acme|proposal|team|-|sha256:1",
    ]);
    expect(reservationsHeld({ ...doc, scope: "agent" })[0]).toBe("slot|acme|memory|agent|alice|-|ci");
    expect(reservationsHeld({ ...doc, scope: "global" })[0]).toBe("slot|*|memory|global|-|-|ci");
    expect(reservationsHeld({ ...doc, project: "web" })[0]).toBe("slot|acme|memory|team|-|web|ci");
  });

  test("a state change claims and releases the difference", () => {
    expect(reservationChanges(undefined, doc)).toEqual({ claim: reservationsHeld(doc), release: [] });
    expect(reservationChanges(doc, { ...doc, contentHash: "sha256:2" })).toEqual({
      claim: ["content|acme|memory|team|-|sha256:2"],
      release: ["content|acme|memory|team|-|sha256:1"],
    });
    expect(reservationChanges(doc, { ...doc, status: "deleted" })).toEqual({
      claim: [],
      release: reservationsHeld(doc),
    });
  });
});

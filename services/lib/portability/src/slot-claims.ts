import { limits, normaliseSlot, type Scope, type Tier } from "@cairn/contracts";
import type { Report } from "./clean-text.ts";
import { cutSlot, shortHash } from "./slot-name.ts";

/**
 * Where a slot must be unique, as ingest's reservation sees it: one active memory (or handoff)
 * per tier, scope, project and slot. Every imported memory is written by the importing
 * principal, so agent-private memories of different source agents share one domain too.
 */
export function slotDomain(tier: Tier, scope: Scope, project: string | null): string {
  return [tier, scope, project ?? ""].join("\u0000");
}

export type SlotClaims = {
  /**
   * The canonical, unique slot for a record: `proposed` made canonical and cut to the limit;
   * if nothing is left, `imported-<hash of seed>`; if the domain already has it, the slot
   * followed by `-<hash of seed>` (then `-2`, `-3`, … should even that be taken). Every change
   * other than canonicalisation, which ingest would make anyway, is reported.
   */
  claim(proposed: string, domain: string, seed: string, report: Report): string;
  /** The slot as it would be claimed, without claiming it (cut and canonical, not made unique). */
  peek(proposed: string): string;
};

export function createSlotClaims(): SlotClaims {
  const taken = new Set<string>();
  const key = (domain: string, slot: string) => `${domain}\u0001${slot}`;
  const shape = (proposed: string): string => cutSlot(normaliseSlot(proposed));
  return {
    peek: shape,
    claim(proposed, domain, seed, report) {
      const canonical = normaliseSlot(proposed);
      let slot = cutSlot(canonical);
      if (slot !== canonical) report(`slot cut to ${limits.slotMaxChars} characters: ${slot}`);
      if (slot.length === 0) {
        slot = `imported-${shortHash(seed)}`;
        report(`slot ${JSON.stringify(proposed)} has no letters or digits; named ${slot}`);
      }
      if (taken.has(key(domain, slot))) {
        const base = slot;
        const suffix = shortHash(seed);
        slot = `${cutSlot(base, limits.slotMaxChars - suffix.length - 1)}-${suffix}`;
        for (let n = 2; taken.has(key(domain, slot)); n++) {
          slot = `${cutSlot(base, limits.slotMaxChars - suffix.length - 2 - String(n).length)}-${suffix}-${n}`;
        }
        report(`slot ${base} is already used by another record of this import; named ${slot}`);
      }
      taken.add(key(domain, slot));
      return slot;
    },
  };
}

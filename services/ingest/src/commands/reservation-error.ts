import { CairnError } from "@cairn/contracts";
import { isSlotReservation } from "../domain/reservations.ts";

/** A reservation another stream holds, as the error a writer can act on. */
export function reservationError(reservation: string, holderStreamId: string): CairnError {
  const holderId = holderStreamId.replace(/^memory-/, "");
  if (isSlotReservation(reservation)) {
    const slot = reservation.split("|").at(-1);
    return new CairnError("slot_taken", `the slot ${slot} already has an active memory: ${holderId}`, {
      hint: `update ${holderId} (memory.update with its version) or replace it (memory.supersede), or choose another slot`,
      details: { slot, holderId },
    });
  }
  return new CairnError("duplicate_content", `the same content is already stored as ${holderId}`, {
    hint: `use ${holderId} instead of storing it again; update it if something about it changed`,
    details: { holderId },
  });
}

// Key streams (`key-<keyId>`): the associative graph's keys. A key's id is derived from its
// tenant and normalised label, so the same concept written by two agents is one key without
// any lookup or reservation.
import { CairnError, type CairnEvent, type KeyType, type StoredEvent } from "@cairn/contracts";

export type KeyState =
  | { exists: false }
  | {
      exists: true;
      keyId: string;
      label: string;
      type: KeyType;
      mergedInto: string | null;
      memoryIds: string[];
    };

export const initialKeyState: KeyState = { exists: false };

export function evolveKey(state: KeyState, stored: StoredEvent): KeyState {
  const event = { type: stored.type, data: stored.data } as Extract<
    CairnEvent,
    { type: "key.linked" | "key.merged" }
  >;
  switch (event.type) {
    case "key.linked": {
      const memoryIds = state.exists ? state.memoryIds : [];
      return {
        exists: true,
        keyId: event.data.keyId,
        label: state.exists ? state.label : event.data.label,
        type: state.exists ? state.type : event.data.type,
        mergedInto: state.exists ? state.mergedInto : null,
        memoryIds: memoryIds.includes(event.data.memoryId) ? memoryIds : [...memoryIds, event.data.memoryId],
      };
    }
    case "key.merged":
      return state.exists ? { ...state, mergedInto: event.data.intoKeyId } : state;
    default: {
      const unknown: never = event;
      throw new Error(`not a key event: ${(unknown as { type: string }).type}`);
    }
  }
}

export type KeyDecision =
  | { type: "link"; keyId: string; label: string; keyType: KeyType; memoryId: string }
  | { type: "merge"; intoKeyId: string };

export function decideKey(state: KeyState, decision: KeyDecision): CairnEvent[] {
  switch (decision.type) {
    case "link":
      if (state.exists && state.memoryIds.includes(decision.memoryId)) return [];
      return [
        {
          type: "key.linked",
          data: {
            keyId: decision.keyId,
            label: decision.label,
            type: decision.keyType,
            memoryId: decision.memoryId,
          },
        },
      ];
    case "merge":
      if (!state.exists) throw new CairnError("not_found", "no such key");
      if (state.keyId === decision.intoKeyId) {
        throw new CairnError("illegal_transition", "a key cannot be merged into itself", {
          hint: "give two different keys",
        });
      }
      if (state.mergedInto !== null) {
        throw new CairnError(
          "illegal_transition",
          `key ${state.keyId} was merged into ${state.mergedInto} already`,
          {
            hint: "merge that key instead",
          },
        );
      }
      return [
        {
          type: "key.merged",
          data: { keyId: state.keyId, intoKeyId: decision.intoKeyId, alias: state.label },
        },
      ];
    default: {
      const unknown: never = decision;
      throw new Error(`unknown key decision ${(unknown as { type: string }).type}`);
    }
  }
}

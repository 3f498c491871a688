// Reading one memory by id or slot (now, or as of a past point), and reading it as an agent
// that follows a key (which records the read, for depth and Hebbian weights).
import { type AsOf, CairnError, type GetMemoryReply, type Tier } from "@cairn/contracts";
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions, recordRecalls } from "./operations-deps.ts";

export async function read(
  deps: OperationsDeps,
  caller: Caller,
  target: {
    id?: string | undefined;
    slot?: string | undefined;
    tier?: Tier | undefined;
    asOf?: AsOf | undefined;
  },
  options: ReadOptions = {},
): Promise<GetMemoryReply> {
  const after = await afterPositionOf(deps, caller, options);
  const reply = await deps.backend.get(caller.principal, { ...target, afterPosition: after });
  if (target.tier !== undefined && reply.document.tier !== target.tier) {
    throw new CairnError(
      "not_found",
      `${target.id ?? target.slot} is a ${reply.document.tier}, not a ${target.tier}`,
      {
        hint: `read it with the ${reply.document.tier} tools`,
      },
    );
  }
  return reply;
}

export async function readMemory(
  deps: OperationsDeps,
  caller: Caller,
  id: string,
  viaKey: string | null,
  options: ReadOptions = {},
): Promise<GetMemoryReply> {
  const reply = await read(deps, caller, { id }, options);
  const keyId = viaKey && /^[0-9a-f-]{36}$/i.test(viaKey) ? viaKey : null;
  recordRecalls(deps, caller, [id], keyId, viaKey && !keyId ? `key:${viaKey}` : null);
  return reply;
}

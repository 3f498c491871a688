// Browsing a tier (inbox, handoffs, listings): what the filters allow, newest first, and the
// open counts.
import type { AsOf, MemoryDocument, Status, Tier } from "@cairn/contracts";
import type { Caller } from "./caller.ts";
import { afterPositionOf, type OperationsDeps, type ReadOptions } from "./operations-deps.ts";

export type ListResult = { items: MemoryDocument[]; position: number };

/** The tier each listable collection is, and the statuses that count as open in it. */
const openStatus: Record<"proposal" | "handoff", Status> = { proposal: "pending", handoff: "active" };

/** Browsing a tier has no query text: the search service treats `*` as "every document". */
const everything = "*";

export async function list(
  deps: OperationsDeps,
  caller: Caller,
  tier: Tier,
  input: {
    query?: string | undefined;
    status?: Status[] | undefined;
    limit?: number | undefined;
    /** The listing as it was at a log position or time. */
    asOf?: AsOf | undefined;
  },
  options: ReadOptions = {},
): Promise<ListResult> {
  const after = await afterPositionOf(deps, caller, options);
  const reply = await deps.backend.candidates(caller.principal, {
    query: input.query ?? everything,
    mode: "lexical",
    candidateK: Math.min(500, input.limit ?? 50),
    filters: {
      tier,
      ...(input.status ? { status: input.status } : {}),
      includeExpired: true,
    },
    ...(after === undefined ? {} : { afterPosition: after }),
    ...(input.asOf === undefined ? {} : { asOf: input.asOf }),
  });
  const items = reply.candidates.map((c) => c.document);
  if (input.query === undefined) items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt));
  return { items, position: reply.position };
}

/** How many open proposals or handoffs the caller can see; null when search cannot say. */
export async function countOpen(
  deps: OperationsDeps,
  caller: Caller,
  tier: "proposal" | "handoff",
  options: ReadOptions = {},
) {
  try {
    const after = await afterPositionOf(deps, caller, options);
    const { count } = await deps.backend.count(caller.principal, {
      filters: { tier, status: [openStatus[tier]], includeExpired: true },
      ...(after === undefined ? {} : { afterPosition: after }),
    });
    return count;
  } catch (error) {
    deps.logger?.debug({ err: error, tier }, "counting open items failed");
    return null;
  }
}

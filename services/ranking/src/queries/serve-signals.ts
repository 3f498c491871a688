import type { SignalsReply, SignalsRequestSchema } from "@cairn/contracts";
import type { z } from "zod";
import { isVisibleTo, readCard } from "../projections/memory-card/memory-card.ts";
import { loadSignals } from "./load-signals.ts";
import { type RequestContext, waitForPosition } from "./ranking-context.ts";

/** Signals of memories the principal may see (others are left out, not reported). */
export async function handleSignals(
  ctx: RequestContext,
  request: z.infer<typeof SignalsRequestSchema>,
): Promise<SignalsReply> {
  const position = await waitForPosition(ctx, request.afterPosition);
  const paths = ctx.layout.signals(request.principal.tenant);
  const cards = await Promise.all(request.ids.map((id) => readCard(ctx.redis, paths.card(id))));
  const visible = cards.filter((c) => c !== undefined && isVisibleTo(c, request.principal));
  const signals = await loadSignals(
    ctx,
    request.principal.tenant,
    visible.map((c) => ({ id: c!.id, terms: c!.terms.slice(0, 64) })),
  );
  return { signals: [...signals.entries()].map(([id, s]) => ({ id, ...s })), position };
}

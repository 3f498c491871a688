import type { SignalsReply, SignalsRequestSchema } from "@cairn/contracts";
import type { z } from "zod";
import { isVisibleTo, readCards } from "../projections/memory-card/memory-card.ts";
import { loadSignals } from "./load-signals.ts";
import type { RequestContext } from "./ranking-context.ts";

/** Signals of memories the principal may see (others are left out, not reported). */
export async function handleSignals(
  ctx: RequestContext,
  request: z.infer<typeof SignalsRequestSchema>,
): Promise<SignalsReply> {
  const { position } = ctx;
  const paths = ctx.layout.signals(request.principal.tenant);
  const cards = await readCards(ctx.redis, paths.card, request.ids);
  const visible = [...cards.values()].filter((c) => isVisibleTo(c, request.principal));
  const signals = await loadSignals(
    ctx,
    request.principal.tenant,
    visible.map((c) => ({ id: c.id, terms: c.terms.slice(0, 64) })),
  );
  return { signals: [...signals.entries()].map(([id, s]) => ({ id, ...s })), position };
}

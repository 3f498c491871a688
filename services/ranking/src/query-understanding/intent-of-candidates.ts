// The one entry of query understanding into re-ranking: the question read once, and each
// candidate's fit to it from the cards ranking already read.
import type { IntentMatch } from "@cairn/contracts";
import type { MemoryCard } from "../projections/memory-card/memory-card.ts";
import { fitQuery } from "./fit-query.ts";
import { understandQuery } from "./understand-query.ts";

export function intentOfCandidates(
  query: string,
  now: Date,
  cards: ReadonlyMap<string, MemoryCard>,
): (id: string) => IntentMatch | undefined {
  const fits = fitQuery(understandQuery(query, now), [...cards.keys()], cards);
  return (id) => fits.get(id);
}

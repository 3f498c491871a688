/** A rough token count (about four characters a token for English and code). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

export type Packed<T> = {
  included: { item: T; truncatedTo: number | null }[];
  omitted: T[];
  usedTokens: number;
};

/**
 * Takes items in order while they fit the budget. The first item is always included, cut to
 * the budget if it alone is too long, so a small budget still yields something to read.
 */
export function packWithinBudget<T>(
  items: readonly T[],
  budgetTokens: number,
  sizeOf: (item: T) => { text: string; overheadTokens: number },
): Packed<T> {
  const included: Packed<T>["included"] = [];
  const omitted: T[] = [];
  let used = 0;
  for (const item of items) {
    const { text, overheadTokens } = sizeOf(item);
    const cost = estimateTokens(text) + overheadTokens;
    if (used + cost <= budgetTokens) {
      included.push({ item, truncatedTo: null });
      used += cost;
    } else if (included.length === 0) {
      const room = Math.max(0, budgetTokens - overheadTokens) * 4;
      included.push({ item, truncatedTo: room });
      used += Math.min(cost, budgetTokens);
    } else {
      omitted.push(item);
    }
  }
  return { included, omitted, usedTokens: used };
}

import Sentiment from "sentiment";

const analyzer = new Sentiment();

/**
 * A signed intensity in [-1, 1] from the AFINN lexicon (`sentiment` package): the
 * per-token score squashed with tanh, so one strong word in a short note counts more than
 * in a long one. Text without English lexicon words (Chinese included) scores 0.
 */
export function sentimentOf(text: string): number {
  const { comparative } = analyzer.analyze(text);
  if (!Number.isFinite(comparative) || comparative === 0) return 0;
  return Math.round(Math.tanh(comparative * 2) * 1000) / 1000;
}

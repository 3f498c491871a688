export { analyzeText, chineseSegments, isTopicWord, stem, words } from "./analyze-text.ts";
export type { Bm25Scorer, CollectionStatistics, WeightedTerm } from "./bm25.ts";
export {
  bm25Parameters,
  bm25Score,
  expansionTermWeight,
  idf,
  prepareBm25,
  queryCoverage,
  weightedQuery,
} from "./bm25.ts";
export type { TermSource } from "./memory-terms.ts";
export { memoryTerms } from "./memory-terms.ts";
export { speakerLabel } from "./speaker-label.ts";
export { englishStopWords } from "./stop-words.ts";
export type { TimeGrain, TimeMention, TimeSpan } from "./time-mentions.ts";
export { mentionOverlaps, timeMentions } from "./time-mentions.ts";

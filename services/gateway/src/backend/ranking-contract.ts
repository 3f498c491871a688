// What the gateway uses of the ranking service (issue 5), mirrored from its contract
// (`contracts/src/ranking.ts`: subjects and the fields read here) until that lands in
// `@cairn/contracts`. Every caller falls back when no ranking service answers (`unavailable`).
import type { Candidate } from "@cairn/contracts";

export const rankingSubjects = {
  expand: "cairn.ranking.expand",
  rerank: "cairn.ranking.rerank",
  keysRecall: "cairn.keys.recall",
  keysRead: "cairn.keys.read",
} as const;

export type SkipReason = { reason: "skip_pattern" | "workflow_lock"; pattern?: string; expiresAt?: string };

export type ExpandReplyFields = { skip: SkipReason | null; terms: string[] };

export type RerankReplyFields = {
  results: (Candidate & { score: number; factors?: Record<string, number> })[];
  skip: SkipReason | null;
};

export type KeyMatchFields = {
  keyId: string;
  label: string;
  aliases: string[];
  type: string;
  linkedCount: number;
  score: number;
};

export type KeysReadReplyFields = {
  key: Omit<KeyMatchFields, "score">;
  memories: { id: string; slot: string; title: string; linkWeight: number }[];
};

export type RankedCandidate = {
  candidate: Candidate;
  score: number;
  /** Factor by factor, when ranking gave them. */
  explanation: unknown;
};

/** A key of the associative graph; `id` and `type` are null when derived from search. */
export type RecalledKey = {
  id: string | null;
  label: string;
  type: string | null;
  score: number;
  memoryCount: number;
};

export type KeyWithMemories = {
  key: { id: string | null; label: string; type: string | null };
  memories: { id: string; slot: string; title: string; weight: number | null }[];
};

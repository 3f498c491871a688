// A consolidation's text: one memory that says what a group of related memories said.
import type { Kind } from "@cairn/contracts";

export type SummaryInput = {
  kind: Kind;
  memories: { title: string; content: string }[];
  /** Upper bound of the summary's content, in characters. */
  maxChars: number;
};

export type Summary = { title: string; content: string; summarizer: string };

export type Summarizer = {
  readonly name: string;
  summarize(input: SummaryInput): Promise<Summary>;
};

import {
  CairnError,
  GetMemoryReplySchema,
  IdSchema,
  KindSchema,
  MemoryDocumentSchema,
  type PlanResult,
  PlanResultSchema,
  RetrievalModeSchema,
  SearchExplanationSchema,
  StatusSchema,
  TimestampSchema,
  WriteResultSchema,
} from "@cairn/contracts";
import type { FastifyReply } from "fastify";
import { z } from "zod";
import type { ReadOptions, WriteOutcome } from "../operations/create-operations.ts";

export const IdParams = z.object({ id: IdSchema });

/** Read-your-writes: `strong` waits for this key's last write; `afterPosition` for a given one. */
export const readQueryShape = {
  consistency: z
    .enum(["eventual", "strong"])
    .optional()
    .describe("`strong` waits until the read models have this key's last write"),
  afterPosition: z.coerce
    .number()
    .int()
    .nonnegative()
    .optional()
    .describe("wait until the read models have reached this log position (a write's `position`)"),
};
export const ReadQuery = z.object(readQueryShape).strict();

/** `asOf`: a log position (digits) or an ISO time: the state as it was then, from the log. */
export const asOfQuery = z
  .string()
  .min(1)
  .max(40)
  .transform((v, ctx) => {
    if (/^\d+$/.test(v)) return Number(v);
    if (TimestampSchema.safeParse(v).success) return v;
    ctx.addIssue({ code: "custom", message: "asOf is a log position or an ISO time with offset" });
    return z.NEVER;
  })
  .optional()
  .describe("a log position or an ISO time: the state as it was then, read from the log");

export function readOptions(query: {
  consistency?: "eventual" | "strong" | undefined;
  afterPosition?: number | undefined;
}): ReadOptions {
  return { consistency: query.consistency ?? "eventual", afterPosition: query.afterPosition };
}

const csv = (what: string) => z.string().optional().describe(`comma-separated ${what}`);
export function splitCsv(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const parts = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  return parts.length ? parts : undefined;
}

export const SearchQuery = z
  .object({
    q: z.string().min(1).max(4000).optional().describe("what to find; without it, the newest first"),
    mode: RetrievalModeSchema.optional(),
    kind: csv(`kinds (${KindSchema.options.join(", ")})`),
    status: csv(`statuses (${StatusSchema.options.join(", ")})`),
    tags: csv("tags"),
    project: z.string().optional(),
    author: z.string().optional().describe("only what this agent wrote"),
    limit: z.coerce.number().int().min(1).max(200).optional(),
    includeExpired: z.enum(["true", "false"]).optional(),
    asOf: asOfQuery,
    explain: z
      .enum(["true", "false"])
      .optional()
      .describe("`true`: each result says why it came back (relevance parts, episode, expansions, factors)"),
    ...readQueryShape,
  })
  .strict();

export const TwoStepQuery = z
  .object({
    dryRun: z.enum(["true", "false"]).optional().describe("`true`: only plan; the answer carries a token"),
    token: z.string().optional().describe("the token of a dry run: carries out that plan"),
  })
  .strict();

/** Destructive REST calls run in two steps, like the MCP tools; a bare one is refused. */
export function twoStep(query: { dryRun?: "true" | "false" | undefined; token?: string | undefined }) {
  const dryRun = query.dryRun === "true";
  if (!dryRun && query.token === undefined) {
    throw new CairnError("precondition_required", "this change runs in two steps", {
      hint: "call with ?dryRun=true to see the plan and get a token, then again with ?token=<token>",
    });
  }
  return { dryRun, ...(query.token === undefined ? {} : { token: query.token }) };
}

/** The two steps in a JSON body: `dryRun: true` only plans, `token` carries out that plan. */
export const twoStepBodyShape = { dryRun: z.boolean().optional(), token: z.string().optional() };

export function twoStepOfBody(body: { dryRun?: boolean | undefined; token?: string | undefined }) {
  return twoStep({ dryRun: body.dryRun ? "true" : undefined, token: body.token });
}

export const WriteOrPlanSchema = z.union([WriteResultSchema, PlanResultSchema]);

export const SearchResponseSchema = z.object({
  results: z.array(
    z.object({
      document: MemoryDocumentSchema,
      score: z.number(),
      explanation: SearchExplanationSchema.optional(),
    }),
  ),
  ranking: z.enum(["ranked", "search_order"]),
  position: z.number().int().nonnegative(),
});

export const ListResponseSchema = z.object({
  items: z.array(MemoryDocumentSchema),
  position: z.number().int().nonnegative(),
});

export const ReadResponseSchema = GetMemoryReplySchema;

function isPlan(outcome: WriteOutcome): outcome is PlanResult {
  return (outcome as PlanResult).dryRun === true;
}

/** A write's answer: the body, and the new version and position as headers too. */
export function sendWrite(reply: FastifyReply, outcome: WriteOutcome, status = 200): WriteOutcome {
  if (isPlan(outcome)) {
    reply.code(200);
    return outcome;
  }
  reply.code(status);
  reply.header("ETag", `"${outcome.version}"`);
  reply.header("Cairn-Position", String(outcome.position));
  return outcome;
}

export const writeHeaders = {
  ETag: "the new version",
  "Cairn-Position": "the log position of the write (pass as afterPosition to read it back)",
};

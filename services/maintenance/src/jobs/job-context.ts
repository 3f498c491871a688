// What a job gets to do its work, and what it answers. A job decides from the view (and the
// read side's signals) and acts only through ingest commands, dry run first.
import {
  type CommandName,
  isCairnError,
  type MaintenanceAction,
  type MaintenanceJob,
  type MaintenanceParams,
  type PlanResult,
  type WriteResult,
} from "@cairn/contracts";
import type { Logger } from "@cairn/telemetry";
import type { NatsConnection } from "@nats-io/nats-core";
import type { IngestClient } from "../clients/ingest-client.ts";
import type { ReadClients } from "../clients/read-clients.ts";
import type { SearchRepairClient } from "../clients/search-repair-client.ts";
import type { Summarizer } from "../summary/summarizer.ts";
import type { MemoryText } from "../view/load-texts.ts";
import type { MaintenanceView, TenantSnapshot } from "../view/maintenance-view.ts";
import type { MemoryCard } from "../view/memory-card.ts";

export type JobContext<J extends MaintenanceJob = MaintenanceJob> = {
  job: J;
  tenant: string;
  runId: string;
  mode: "dry_run" | "apply";
  params: MaintenanceParams[J];
  now: Date;
  /** GC: the token of an earlier dry run, binding the exact set to purge. */
  token: string | undefined;
  /** The tenant's part of the maintenance view, as of the start of the run. */
  view: TenantSnapshot;
  /** The whole view, for what compares it with the read models as they move (repair). */
  fullView: MaintenanceView;
  ingest: IngestClient;
  read: ReadClients;
  searchRepair: SearchRepairClient;
  /** The bus, for asking other services (their projections' dead letters). */
  nc: NatsConnection;
  timeoutMs: number;
  loadTexts(ids: readonly string[]): Promise<Map<string, MemoryText>>;
  summarizer: Summarizer;
  progress(stage: string, done: number, total: number | null): void;
  logger: Logger;
};

export type JobResult = {
  examined: number;
  actions: MaintenanceAction[];
  /** GC dry run: the token for exactly the previewed set. */
  token?: { token: string; expiresAt: string } | null;
  /** Log positions the job's commands reached. */
  positions: number[];
};

export type Job<J extends MaintenanceJob> = (ctx: JobContext<J>) => Promise<JobResult>;

const dayMs = 86_400_000;

export function ageDays(since: string, now: Date): number {
  return (now.getTime() - Date.parse(since)) / dayMs;
}

/** Active, current memories (tier memory) of the tenant: what consolidation, dedup and forgetting consider. */
export function liveMemories(ctx: JobContext, cards: readonly MemoryCard[] = ctx.view.cards()) {
  return cards.filter(
    (c) =>
      c.tier === "memory" &&
      c.status === "active" &&
      !c.purgedAt &&
      (c.invalidAt === null || Date.parse(c.invalidAt) > ctx.now.getTime()),
  );
}

/** The visibility domain a memory's slot is unique in: scope, project, and the agent of private ones. */
export function domainOf(card: MemoryCard): string {
  return `${card.scope}|${card.project ?? "-"}|${card.scope === "agent" ? card.agent : "-"}`;
}

export function errorText(error: unknown): string {
  return isCairnError(error) ? `${error.code}: ${error.message}` : (error as Error).message;
}

/**
 * Runs one destructive command the two-step way: the dry run always (it validates and says
 * what would change), and in apply mode the same command with the dry run's token. The
 * action comes back `planned`, `applied` or `failed`.
 */
export async function planThenApply(
  ctx: JobContext,
  action: MaintenanceAction,
  command: CommandName,
  payload: Record<string, unknown>,
  step: string,
  positions: number[],
): Promise<{ action: MaintenanceAction; plan?: PlanResult; result?: WriteResult }> {
  let plan: PlanResult;
  try {
    plan = await ctx.ingest.plan(command, payload);
  } catch (error) {
    return { action: { ...action, status: "failed", error: errorText(error) } };
  }
  if (ctx.mode === "dry_run") return { action: { ...action, status: "planned" }, plan };
  try {
    const result = await ctx.ingest.execute(command, payload, plan.token, `${ctx.runId}:${step}`);
    positions.push(result.position);
    return { action: { ...action, status: "applied", resultId: action.resultId ?? result.id }, plan, result };
  } catch (error) {
    return { action: { ...action, status: "failed", error: errorText(error) }, plan };
  }
}

export function round(value: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

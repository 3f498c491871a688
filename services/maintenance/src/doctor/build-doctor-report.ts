// The doctor: a health report of the whole deployment (or one tenant) that a person or an
// agent can act on. It compares the read models with the log (every document, or a sample),
// and reports lag, backlogs, dead letters, verification due and inbox age. It names memories
// by id only: no content, title or label of a memory is ever in the report.
import { requestRpc } from "@cairn/bus";
import {
  type DoctorFinding,
  type DoctorReport,
  type DoctorRequestSchema,
  type DriftReport,
  eventStreamName,
  type ProjectionName,
  projectionNames,
  type SearchStatusReply,
  searchSubjects,
} from "@cairn/contracts";
import { lastPosition, readCheckpoint } from "@cairn/event-store";
import type { NatsConnection } from "@nats-io/nats-core";
import type pg from "pg";
import type { z } from "zod";
import type { ReadModelInventory, SearchRepairClient } from "../clients/search-repair-client.ts";
import { jobParams } from "../settings/effective-settings.ts";
import type { MaintenanceView } from "../view/maintenance-view.ts";
import { type MemoryCard, versionAt } from "../view/memory-card.ts";

export type DoctorDeps = {
  pool: pg.Pool;
  nc: NatsConnection;
  view: MaintenanceView;
  searchRepair: SearchRepairClient;
  now: () => Date;
  timeoutMs: number;
};

type ParsedDoctorRequest = z.infer<typeof DoctorRequestSchema>;

/** The relay's checkpoint name (services/ingest relay). */
const relayCheckpoint = "relay:jetstream";
const maxIds = 50;
const hourMs = 3_600_000;

export type DriftDetail = DriftReport & { missingIds: string[]; staleIds: string[]; notPurgedIds: string[] };

/** Compares one read model with the log as of the read model's own position. */
export function compareWithLog(
  inventory: ReadModelInventory,
  cards: ReadonlyMap<string, MemoryCard>,
  checkedIds: readonly string[] | "all",
): DriftDetail {
  const position = inventory.position;
  const missing: string[] = [];
  const stale: string[] = [];
  const unexplained: string[] = [];
  const notPurged: string[] = [];
  const ids =
    checkedIds === "all" ? [...new Set([...cards.keys(), ...inventory.documents.keys()])] : checkedIds;
  let checked = 0;
  for (const id of ids) {
    const card = cards.get(id);
    const held = inventory.documents.get(id);
    const expected = card ? versionAt(card, position) : 0;
    if (expected === 0 && !held) continue;
    checked += 1;
    if (!card) {
      if (held) unexplained.push(id);
      continue;
    }
    if (!held) {
      if (expected > 0) missing.push(id);
      continue;
    }
    // Behind the position it claims to have applied: it lost events. Ahead of the log: the
    // log cannot explain it. In between: live projection moved on while the doctor looked.
    if (held.version > card.version) unexplained.push(id);
    else if (held.version < expected) stale.push(id);
    const purgedAt = card.purgedAt === null ? undefined : card.positions[card.positions.length - 1];
    if (purgedAt !== undefined && purgedAt <= position && held.hasText) notPurged.push(id);
  }
  return {
    readModel: inventory.projection,
    position,
    checked,
    missing: missing.length,
    stale: stale.length,
    unexplained: unexplained.length,
    notPurged: notPurged.length,
    ids: {
      missing: missing.slice(0, maxIds),
      stale: stale.slice(0, maxIds),
      unexplained: unexplained.slice(0, maxIds),
      notPurged: notPurged.slice(0, maxIds),
    },
    missingIds: missing,
    staleIds: stale,
    notPurgedIds: notPurged,
  };
}

function sample<T>(items: readonly T[], size: number): T[] {
  if (items.length <= size) return [...items];
  const copy = [...items];
  for (let i = 0; i < size; i += 1) {
    const j = i + Math.floor(Math.random() * (copy.length - i));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy.slice(0, size);
}

/**
 * Drift of every read model for the tenant (or all tenants): every document in full mode,
 * a random sample of the log's memories otherwise.
 */
export async function readModelDrift(
  deps: Pick<DoctorDeps, "view" | "searchRepair">,
  options: { tenant?: string | undefined; full: boolean; sampleSize: number },
): Promise<DriftDetail[]> {
  const out: DriftDetail[] = [];
  for (const projection of projectionNames as readonly ProjectionName[]) {
    const tenantFilter = options.tenant === undefined ? {} : { tenant: options.tenant };
    let inventory: ReadModelInventory;
    let checkedIds: string[] | "all";
    if (options.full) {
      inventory = await deps.searchRepair.inventory(projection, tenantFilter);
      checkedIds = "all";
    } else {
      await deps.view.catchUp();
      const ids = sample(
        cardsOf(deps.view, options.tenant).map((c) => c.id),
        options.sampleSize,
      );
      if (ids.length === 0) continue;
      inventory = await deps.searchRepair.inventory(projection, { ...tenantFilter, ids });
      checkedIds = ids;
    }
    // After the inventory: whatever a read model holds, the view has read from the log.
    await deps.view.catchUp();
    const cards = new Map(cardsOf(deps.view, options.tenant).map((c) => [c.id, c]));
    out.push(compareWithLog(inventory, cards, checkedIds));
  }
  return out;
}

function cardsOf(view: MaintenanceView, tenant: string | undefined): MemoryCard[] {
  return (tenant === undefined ? view.tenants() : [tenant]).flatMap((t) => view.cards(t));
}

type ConsumerInfo = {
  name: string;
  num_pending?: number;
  num_ack_pending?: number;
  num_redelivered?: number;
};

/** Durable consumers of the event stream, through the JetStream API (no client library needed). */
async function jetStreamConsumers(nc: NatsConnection, timeoutMs: number): Promise<DoctorReport["consumers"]> {
  const out: DoctorReport["consumers"] = [];
  let offset = 0;
  for (;;) {
    const msg = await nc.request(`$JS.API.CONSUMER.LIST.${eventStreamName}`, JSON.stringify({ offset }), {
      timeout: timeoutMs,
    });
    const reply = msg.json<{
      consumers?: ConsumerInfo[];
      total?: number;
      error?: { description?: string };
    }>();
    if (reply.error) throw new Error(reply.error.description ?? "JetStream refused the consumer list");
    const page = reply.consumers ?? [];
    for (const c of page) {
      out.push({
        name: c.name,
        pending: c.num_pending ?? 0,
        ackPending: c.num_ack_pending ?? 0,
        redelivered: c.num_redelivered ?? 0,
      });
    }
    offset += page.length;
    if (page.length === 0 || offset >= (reply.total ?? 0))
      return out.sort((a, b) => a.name.localeCompare(b.name));
  }
}

async function deadLetters(pool: pg.Pool): Promise<DoctorReport["deadLetters"]> {
  try {
    const { rows } = await pool.query<{ projection: string; n: number; last_at: Date | null }>(
      `select projection, count(*)::int as n, max(recorded_at) as last_at
         from cairn_search.dead_letters group by projection order by projection`,
    );
    return rows.map((r) => ({
      projection: r.projection,
      count: r.n,
      lastAt: r.last_at?.toISOString() ?? null,
    }));
  } catch (error) {
    if ((error as { code?: string }).code === "42P01") return [];
    throw error;
  }
}

function ageHours(since: string | undefined, now: Date): number | null {
  return since === undefined ? null : Math.round(((now.getTime() - Date.parse(since)) / hourMs) * 10) / 10;
}

const severityRank = { info: 0, warn: 1, error: 2 } as const;

/** Memories of the verification kinds never verified, or verified longer ago than the review period. */
export function verificationDue(view: MaintenanceView, tenant: string, now: Date): MemoryCard[] {
  const params = jobParams("verification", view.maintenanceSettings(tenant), undefined);
  const cutoff = now.getTime() - params.reviewDays * 86_400_000;
  return view
    .cards(tenant)
    .filter(
      (c) =>
        c.tier === "memory" &&
        c.status === "active" &&
        params.kinds.includes(c.kind) &&
        (c.verifiedAt === null || Date.parse(c.verifiedAt) < cutoff),
    );
}

export async function buildDoctorReport(
  deps: DoctorDeps,
  request: ParsedDoctorRequest,
): Promise<DoctorReport> {
  const now = deps.now();
  const findings: DoctorFinding[] = [];
  const unavailable = (what: string, error: unknown) =>
    findings.push({
      code: "unavailable",
      severity: "warn",
      message: `${what} did not answer: ${(error as Error).message}`,
      count: 1,
      fix: "none",
    });

  await deps.view.catchUp();
  const position = await lastPosition(deps.pool);
  const relay = await readCheckpoint(deps.pool, relayCheckpoint);
  const relayBacklog = Math.max(0, position - relay);
  if (relayBacklog > 100) {
    findings.push({
      code: "relay_backlog",
      severity: "warn",
      message: `the relay is ${relayBacklog} positions behind the log`,
      count: relayBacklog,
      fix: "none",
    });
  }

  let projections: DoctorReport["projections"] = [];
  try {
    const status = await requestRpc<SearchStatusReply>(
      deps.nc,
      searchSubjects.status,
      {},
      {
        timeoutMs: deps.timeoutMs,
      },
    );
    projections = status.projections.map((p) => ({
      name: `search.${p.name}`,
      position: p.position,
      lag: Math.max(0, position - p.position),
    }));
    for (const p of projections) {
      if (p.lag > 100) {
        findings.push({
          code: "projection_lag",
          severity: "warn",
          message: `${p.name} is ${p.lag} positions behind the log`,
          count: p.lag,
          fix: "none",
        });
      }
    }
  } catch (error) {
    unavailable("search", error);
  }

  let consumers: DoctorReport["consumers"] = [];
  try {
    consumers = await jetStreamConsumers(deps.nc, deps.timeoutMs);
    const behind = consumers.filter((c) => c.pending > 1000);
    if (behind.length > 0) {
      findings.push({
        code: "consumer_backlog",
        severity: "warn",
        message: `${behind.length} consumer(s) have more than 1000 events pending: ${behind.map((c) => c.name).join(", ")}`,
        count: behind.length,
        fix: "none",
      });
    }
  } catch (error) {
    unavailable("JetStream", error);
  }

  const letters = await deadLetters(deps.pool);
  const letterCount = letters.reduce((n, l) => n + l.count, 0);
  if (letterCount > 0) {
    findings.push({
      code: "dead_letters",
      severity: "warn",
      message: `${letterCount} event(s) could not be projected and were set aside`,
      count: letterCount,
      fix: "rebuild",
    });
  }

  let drift: DriftReport[] = [];
  if (!request.summaryOnly) {
    try {
      const details = await readModelDrift(deps, {
        tenant: request.tenant,
        full: request.full,
        sampleSize: request.sampleSize,
      });
      drift = details.map(({ missingIds: _m, staleIds: _s, notPurgedIds: _n, ...report }) => report);
      for (const d of drift) {
        const add = (code: DoctorFinding["code"], n: number, what: string, fix: DoctorFinding["fix"]) => {
          if (n > 0)
            findings.push({
              code,
              severity: "error",
              message: `${n} ${what} in ${d.readModel}`,
              count: n,
              fix,
            });
        };
        add("document_missing", d.missing, "document(s) of the log are missing", "repair");
        add("document_stale", d.stale, "document(s) are behind the log", "repair");
        add("document_unexplained", d.unexplained, "document(s) are not explained by the log", "rebuild");
        add("document_not_purged", d.notPurged, "purged memory(ies) still hold text", "repair");
      }
    } catch (error) {
      unavailable("the read model inventory", error);
    }
  }

  const tenants = request.tenant === undefined ? deps.view.tenants() : [request.tenant];
  const byKind: Record<string, number> = {};
  let due = 0;
  for (const tenant of tenants) {
    for (const card of verificationDue(deps.view, tenant, now)) {
      due += 1;
      byKind[card.kind] = (byKind[card.kind] ?? 0) + 1;
    }
  }
  if (due > 0) {
    findings.push({
      code: "verification_due",
      severity: "info",
      message: `${due} constraint/fix/workflow memory(ies) are due for verification`,
      count: due,
      fix: "review",
    });
  }

  const cards = tenants.flatMap((t) => deps.view.cards(t));
  const oldest = (list: MemoryCard[]) => list.map((c) => c.createdAt).sort()[0];
  const proposals = cards.filter((c) => c.tier === "proposal" && c.status === "pending");
  const handoffs = cards.filter((c) => c.tier === "handoff" && c.status === "active");
  const inbox = {
    pendingProposals: proposals.length,
    oldestProposalAgeHours: ageHours(oldest(proposals), now),
    openHandoffs: handoffs.length,
    oldestHandoffAgeHours: ageHours(oldest(handoffs), now),
  };
  if ((inbox.oldestProposalAgeHours ?? 0) > 72) {
    findings.push({
      code: "inbox_aging",
      severity: "warn",
      message: `${proposals.length} proposal(s) wait for review; the oldest for ${Math.round(inbox.oldestProposalAgeHours ?? 0)} h`,
      count: proposals.length,
      fix: "review",
    });
  }

  const worst = findings.reduce<"info" | "warn" | "error">(
    (w, f) => (severityRank[f.severity] > severityRank[w] ? f.severity : w),
    "info",
  );
  const status = worst === "info" ? "ok" : worst;
  const serious = findings.filter((f) => f.severity !== "info");
  const summary =
    serious.length === 0
      ? `ok: log at ${position}, ${drift.length > 0 ? "read models match the log" : "services answer"}${due > 0 ? `; ${due} memory(ies) due for verification` : ""}`
      : `${status}: ${serious.map((f) => f.message).join("; ")}`;

  return {
    generatedAt: now.toISOString(),
    tenant: request.tenant ?? null,
    mode: request.summaryOnly ? "summary" : request.full ? "full" : "sample",
    status,
    summary,
    findings,
    log: { position },
    relay: { checkpoint: relay, backlog: relayBacklog },
    projections,
    consumers,
    deadLetters: letters,
    drift,
    verification: { due, byKind },
    inbox,
  };
}

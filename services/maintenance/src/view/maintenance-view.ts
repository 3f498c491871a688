// Maintenance's own view of the log, a projection (`maintenance.view`) kept in Postgres
// (`cairn_maintenance.view_rows`, one row per memory card, tenant and last run, per
// generation): a card per memory stream (no text), the tenants' settings, and the last run of
// each job per tenant (from `maintenance.run_recorded`, so every copy sees the runs of every
// other copy). Jobs read a tenant's snapshot of it; the projection runtime keeps it current
// and can rebuild it from the log like any read model.
import type {
  DecodedEvent,
  EventType,
  MaintenanceJob,
  MaintenanceRunRecord,
  MaintenanceSettings,
  SealRing,
} from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import {
  isMemoryEvent,
  isMemoryFoldError,
  memoryEventTypes,
  memoryIdOfStream,
  memoryStreamId,
} from "@cairn/memory-model";
import {
  createPostgresGenerations,
  type LiveProjector,
  type Projection,
  prepareBatch,
  type RefusedEvent,
  snapshotRows,
} from "@cairn/projection-runtime";
import type pg from "pg";
import { evolveCard, type MemoryCard } from "./memory-card.ts";

export type RunSummary = Pick<
  MaintenanceRunRecord,
  "runId" | "job" | "mode" | "trigger" | "outcome" | "startedAt" | "finishedAt"
>;

export type TenantState = {
  maintenance: MaintenanceSettings;
  synonyms: string[][];
  /** The last run of each job (`<job>`) and of each job by trigger (`<job>:<trigger>`). */
  lastRuns: Record<string, RunSummary>;
};

const emptyTenant: TenantState = { maintenance: {}, synonyms: [], lastRuns: {} };

/** A tenant's part of the view at one position, for a job to decide from. */
export type TenantSnapshot = {
  tenant: string;
  position: number;
  cards(): MemoryCard[];
  card(id: string): MemoryCard | undefined;
  maintenanceSettings(): MaintenanceSettings;
  synonyms(): string[][];
  /** The last recorded run of a job (with `trigger`: the last one so triggered). */
  lastRun(job: MaintenanceJob, trigger?: RunSummary["trigger"]): RunSummary | undefined;
};

export type MaintenanceView = {
  readonly projection: Projection;
  /** Reads the log up to everything committed before the call (a run recorded just before). */
  catchUp(): Promise<number>;
  position(): Promise<number>;
  tenants(): Promise<string[]>;
  tenantState(tenant: string): Promise<TenantState>;
  snapshot(tenant: string): Promise<TenantSnapshot>;
};

type Row = { kind: "card" | "tenant"; id: string; tenant: string; body: unknown };

export const viewHandles: ReadonlySet<EventType> = new Set<EventType>([
  ...memoryEventTypes,
  "tenant.settings_changed",
  "maintenance.run_recorded",
]);

function summaryOf(run: MaintenanceRunRecord): RunSummary {
  return {
    runId: run.runId,
    job: run.job,
    mode: run.mode,
    trigger: run.trigger,
    outcome: run.outcome,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}

/** Applies a batch to the cards and tenant states it touches (loaded by the caller). */
export function foldViewEvents(
  events: readonly DecodedEvent[],
  cards: Map<string, MemoryCard>,
  tenants: Map<string, TenantState>,
  refused: RefusedEvent[],
): { cards: Set<string>; tenants: Set<string> } {
  const changed = { cards: new Set<string>(), tenants: new Set<string>() };
  const state = (tenant: string) => {
    let s = tenants.get(tenant);
    if (!s) {
      s = structuredClone(emptyTenant);
      tenants.set(tenant, s);
    }
    changed.tenants.add(tenant);
    return s;
  };
  for (const event of events) {
    if (isMemoryEvent(event)) {
      const id = memoryIdOfStream(event.streamId) as string;
      try {
        cards.set(id, evolveCard(cards.get(id), event));
        changed.cards.add(id);
      } catch (error) {
        if (!isMemoryFoldError(error)) throw error;
        refused.push({ event, reason: "cannot_apply", error: error.message });
      }
    } else if (event.type === "tenant.settings_changed") {
      const s = state(event.meta.tenant);
      if (event.data.maintenance !== undefined) s.maintenance = event.data.maintenance;
      if (event.data.synonyms !== undefined) s.synonyms = event.data.synonyms;
    } else if (event.type === "maintenance.run_recorded") {
      const s = state(event.meta.tenant);
      const summary = summaryOf(event.data);
      s.lastRuns[event.data.job] = summary;
      s.lastRuns[`${event.data.job}:${event.data.trigger}`] = summary;
    }
  }
  return changed;
}

export function createMaintenanceView(options: {
  pool: pg.Pool;
  log: Pick<EventStore, "readStream" | "lastCommittedPosition">;
  sealRing: SealRing;
  /** Set once the runtime runs the projection: catch-ups go through it. */
  projector?: () => LiveProjector | undefined;
  /** How long catchUp waits for committed events an older transaction holds back (default 5 s). */
  visibilityWaitMs?: number;
}): MaintenanceView {
  const { pool } = options;
  const generations = createPostgresGenerations(pool, "maintenance.view", {
    async dropData(client, generation) {
      await client.query("delete from cairn_maintenance.view_rows where generation = $1", [
        generation.generation,
      ]);
    },
  });

  async function load(
    db: pg.Pool | pg.PoolClient,
    generation: number,
    cardIds: readonly string[],
    tenantIds: readonly string[],
  ): Promise<{ cards: Map<string, MemoryCard>; tenants: Map<string, TenantState> }> {
    const { rows } = await db.query<Row>(
      `select kind, id, tenant, body from cairn_maintenance.view_rows
        where generation = $1 and ((kind = 'card' and id = any($2::text[])) or (kind = 'tenant' and id = any($3::text[])))`,
      [generation, cardIds, tenantIds],
    );
    const cards = new Map<string, MemoryCard>();
    const tenants = new Map<string, TenantState>();
    for (const row of rows) {
      if (row.kind === "card") cards.set(row.id, row.body as MemoryCard);
      else tenants.set(row.id, row.body as TenantState);
    }
    return { cards, tenants };
  }

  async function write(
    client: pg.PoolClient,
    generation: number,
    cards: Map<string, MemoryCard>,
    tenants: Map<string, TenantState>,
    changed: { cards: Set<string>; tenants: Set<string> },
  ): Promise<void> {
    const rows: Row[] = [
      ...[...changed.cards].map((id) => {
        const card = cards.get(id) as MemoryCard;
        return { kind: "card" as const, id, tenant: card.tenant, body: card };
      }),
      ...[...changed.tenants].map((id) => ({
        kind: "tenant" as const,
        id,
        tenant: id,
        body: tenants.get(id),
      })),
    ];
    if (rows.length === 0) return;
    await client.query(
      `insert into cairn_maintenance.view_rows (generation, kind, id, tenant, body)
       select $1, r.kind, r.id, r.tenant, r.body from unnest($2::text[], $3::text[], $4::text[], $5::jsonb[])
         as r(kind, id, tenant, body)
       on conflict (generation, kind, id) do update set tenant = excluded.tenant, body = excluded.body`,
      [
        generation,
        rows.map((r) => r.kind),
        rows.map((r) => r.id),
        rows.map((r) => r.tenant),
        rows.map((r) => JSON.stringify(r.body)),
      ],
    );
  }

  const projection: Projection = {
    name: "maintenance.view",
    handles: viewHandles,
    readsText: true,
    generations,
    async snapshot(generation) {
      const { rows } = await pool.query<Record<string, unknown>>(
        "select kind, id, tenant, body from cairn_maintenance.view_rows where generation = $1",
        [generation],
      );
      return snapshotRows(rows, (row) => `${row.kind}/${row.id}`);
    },
    async apply(batch) {
      const cardIds = batch.events.flatMap((e) =>
        isMemoryEvent(e) ? [memoryIdOfStream(e.streamId) as string] : [],
      );
      const tenantIds = batch.events.flatMap((e) => (e.streamType === "memory" ? [] : [e.meta.tenant]));
      const loaded = await load(pool, batch.generation, [...new Set(cardIds)], [...new Set(tenantIds)]);
      const refused: RefusedEvent[] = [];
      const changed = foldViewEvents(batch.events, loaded.cards, loaded.tenants, refused);
      const outcome = await generations.commit(
        batch.generation,
        batch.writer,
        batch.expected,
        batch.next,
        (client) => write(client, batch.generation, loaded.cards, loaded.tenants, changed),
      );
      return { outcome, refused: outcome === "ok" ? refused : [] };
    },
    async repair(generation, events) {
      // A card is folded again from its whole stream; settings and runs apply as they come.
      for (let attempt = 1; attempt <= 20; attempt += 1) {
        const checkpoint = await generations.checkpoint(generation);
        const ids = [
          ...new Set(
            events.flatMap((e) => (isMemoryEvent(e) ? [memoryIdOfStream(e.streamId) as string] : [])),
          ),
        ];
        const replayed: DecodedEvent[] = [];
        for (const id of ids) {
          const stored = (await options.log.readStream(memoryStreamId(id))).filter(
            (e) => e.position <= checkpoint,
          );
          replayed.push(...(await prepareBatch(projection, stored, options.sealRing)).events);
        }
        const tenantIds = [
          ...new Set(events.filter((e) => e.streamType !== "memory").map((e) => e.meta.tenant)),
        ];
        const loaded = await load(pool, generation, [], tenantIds);
        const changed = foldViewEvents(
          [...replayed, ...events.filter((e) => e.streamType !== "memory")],
          loaded.cards,
          loaded.tenants,
          [],
        );
        const outcome = await generations.commit(
          generation,
          { kind: "live" },
          checkpoint,
          checkpoint,
          (client) => write(client, generation, loaded.cards, loaded.tenants, changed),
        );
        if (outcome === "ok") return;
      }
      throw new Error("the maintenance view kept moving while it was repaired; retry the repair");
    },
    probe: async () => void (await pool.query("select 1")),
  };

  async function active(): Promise<number | null> {
    return generations.active();
  }

  const view: MaintenanceView = {
    projection,
    async catchUp() {
      // The runtime's projector reads below the oldest open transaction; read on until the view
      // has reached everything committed before this call (or the wait is up).
      const target = await options.log.lastCommittedPosition();
      const deadline = Date.now() + (options.visibilityWaitMs ?? 5000);
      for (;;) {
        const projector = options.projector?.();
        const reached = projector ? await projector.catchUp() : await view.position();
        if (reached >= target || Date.now() >= deadline) return reached;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    async position() {
      const g = await active();
      return g === null ? 0 : generations.checkpoint(g);
    },
    async tenants() {
      const g = await active();
      if (g === null) return [];
      const { rows } = await pool.query<{ tenant: string }>(
        "select distinct tenant from cairn_maintenance.view_rows where generation = $1 order by tenant",
        [g],
      );
      return rows.map((r) => r.tenant);
    },
    async tenantState(tenant) {
      const g = await active();
      if (g === null) return structuredClone(emptyTenant);
      return (await load(pool, g, [], [tenant])).tenants.get(tenant) ?? structuredClone(emptyTenant);
    },
    async snapshot(tenant) {
      const g = await active();
      const position = g === null ? 0 : await generations.checkpoint(g);
      const state = await view.tenantState(tenant);
      const cards = new Map<string, MemoryCard>();
      if (g !== null) {
        const { rows } = await pool.query<{ id: string; body: MemoryCard }>(
          "select id, body from cairn_maintenance.view_rows where generation = $1 and kind = 'card' and tenant = $2",
          [g, tenant],
        );
        for (const row of rows) cards.set(row.id, row.body);
      }
      return snapshotOf(tenant, position, [...cards.values()], state);
    },
  };
  return view;
}

/** A snapshot from cards and a tenant state (also what tests build by hand). */
export function snapshotOf(
  tenant: string,
  position: number,
  cards: MemoryCard[],
  state: TenantState = emptyTenant,
): TenantSnapshot {
  const byId = new Map(cards.map((c) => [c.id, c]));
  return {
    tenant,
    position,
    cards: () => cards,
    card: (id) => byId.get(id),
    maintenanceSettings: () => state.maintenance,
    synonyms: () => state.synonyms,
    lastRun: (job, trigger) => state.lastRuns[trigger === undefined ? job : `${job}:${trigger}`],
  };
}

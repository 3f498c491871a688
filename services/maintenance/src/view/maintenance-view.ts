// Maintenance's own view of the log, kept in memory: a card per memory stream (no text), the
// tenants' settings, and the last run of each job per tenant (from `maintenance.run_recorded`,
// so every copy sees the runs of every other copy). It reads the log itself (read-only) and
// catches up on demand; sealed text is opened only to derive the cards' features.
import { setTimeout as sleep } from "node:timers/promises";
import {
  type ContentKeyring,
  type MaintenanceJob,
  type MaintenanceRunRecord,
  type MaintenanceSettings,
  openMemoryFields,
  openSealedEvents,
  SealedContentError,
  type StoredEvent,
  sealedMemoryIdOf,
} from "@cairn/contracts";
import type { EventStore } from "@cairn/event-store";
import { evolveCard, type MemoryCard } from "./memory-card.ts";

export type RunSummary = Pick<
  MaintenanceRunRecord,
  "runId" | "job" | "mode" | "trigger" | "outcome" | "startedAt" | "finishedAt"
>;

type TenantState = {
  cards: Map<string, MemoryCard>;
  maintenance: MaintenanceSettings;
  synonyms: string[][];
  lastRuns: Map<string, RunSummary>;
};

export type MaintenanceView = {
  /**
   * Reads the log beyond the view's position, up to everything committed before the call (a
   * run another copy recorded just before this one took the lock, settings changed just
   * before a tick); answers the position reached.
   */
  catchUp(): Promise<number>;
  position(): number;
  tenants(): string[];
  cards(tenant: string): MemoryCard[];
  card(id: string): MemoryCard | undefined;
  maintenanceSettings(tenant: string): MaintenanceSettings;
  synonyms(tenant: string): string[][];
  /** The last recorded run of a job in a tenant (with `trigger`: the last one so triggered). */
  lastRun(tenant: string, job: MaintenanceJob, trigger?: RunSummary["trigger"]): RunSummary | undefined;
};

const memoryPrefix = "memory-";

export function createMaintenanceView(options: {
  log: Pick<EventStore, "readAll" | "lastCommittedPosition">;
  keyring: ContentKeyring;
  batchSize?: number;
  /**
   * How long catchUp waits for committed events that an older transaction still holds back
   * below the readers' horizon before it answers with what is readable (default 5 s).
   */
  visibilityWaitMs?: number;
  /** Told about an event whose sealed text does not open (its text then counts as empty). */
  onUnreadable?: (event: StoredEvent, error: SealedContentError) => void;
}): MaintenanceView {
  const batchSize = options.batchSize ?? 1000;
  const visibilityWaitMs = options.visibilityWaitMs ?? 5000;
  const tenants = new Map<string, TenantState>();
  const byId = new Map<string, MemoryCard>();
  let position = 0;
  let running: Promise<number> | undefined;

  const tenant = (name: string): TenantState => {
    let state = tenants.get(name);
    if (!state) {
      state = { cards: new Map(), maintenance: {}, synonyms: [], lastRuns: new Map() };
      tenants.set(name, state);
    }
    return state;
  };

  function apply(event: StoredEvent): void {
    if (event.streamType === "memory" && event.streamId.startsWith(memoryPrefix)) {
      const id = event.streamId.slice(memoryPrefix.length);
      const next = evolveCard(byId.get(id), event);
      if (!next) return;
      byId.set(id, next);
      tenant(next.tenant).cards.set(id, next);
      return;
    }
    if (event.type === "tenant.settings_changed") {
      const data = event.data as { maintenance?: MaintenanceSettings; synonyms?: string[][] };
      const state = tenant(event.meta.tenant);
      if (data.maintenance !== undefined) state.maintenance = data.maintenance;
      if (data.synonyms !== undefined) state.synonyms = data.synonyms;
      return;
    }
    if (event.type === "maintenance.run_recorded") {
      const run = event.data as MaintenanceRunRecord;
      const summary: RunSummary = {
        runId: run.runId,
        job: run.job,
        mode: run.mode,
        trigger: run.trigger,
        outcome: run.outcome,
        startedAt: run.startedAt,
        finishedAt: run.finishedAt,
      };
      const runs = tenant(event.meta.tenant).lastRuns;
      runs.set(run.job, summary);
      runs.set(`${run.job}:${run.trigger}`, summary);
    }
  }

  /**
   * The batch with its sealed text opened. A value that does not open with its key (damaged,
   * or sealed with another key) must not stop the view: that event's text counts as empty.
   */
  async function opened(batch: StoredEvent[]): Promise<StoredEvent[]> {
    try {
      return await openSealedEvents(batch, options.keyring);
    } catch (error) {
      if (!(error instanceof SealedContentError)) throw error;
      const out: StoredEvent[] = [];
      for (const event of batch) {
        try {
          out.push(...(await openSealedEvents([event], options.keyring)));
        } catch (inner) {
          if (!(inner instanceof SealedContentError)) throw inner;
          options.onUnreadable?.(event, inner);
          const id = sealedMemoryIdOf(event) ?? "";
          out.push({ ...event, data: openMemoryFields(event.data as object, undefined, id) });
        }
      }
      return out;
    }
  }

  async function readOn(): Promise<number> {
    for (;;) {
      const batch = await options.log.readAll({ after: position, limit: batchSize });
      if (batch.length === 0) return position;
      for (const event of await opened(batch)) apply(event);
      position = batch.at(-1)?.position ?? position;
    }
  }

  return {
    async catchUp() {
      // readAll stops below the oldest open transaction, so a read that merely finds nothing
      // more (or one already in flight, started before this call) can miss an event committed
      // before the call; read on until the view has reached everything committed by then.
      const target = await options.log.lastCommittedPosition();
      const deadline = Date.now() + visibilityWaitMs;
      for (;;) {
        running ??= readOn().finally(() => {
          running = undefined;
        });
        const reached = await running;
        if (reached >= target || Date.now() >= deadline) return reached;
        await sleep(20);
      }
    },
    position: () => position,
    tenants: () => [...tenants.keys()].sort(),
    cards: (name) => [...(tenants.get(name)?.cards.values() ?? [])],
    card: (id) => byId.get(id),
    maintenanceSettings: (name) => tenants.get(name)?.maintenance ?? {},
    synonyms: (name) => tenants.get(name)?.synonyms ?? [],
    lastRun: (name, job, trigger) =>
      tenants.get(name)?.lastRuns.get(trigger === undefined ? job : `${job}:${trigger}`),
  };
}

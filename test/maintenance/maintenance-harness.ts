// Cairn's back end in this process for the maintenance suites: ingest (with its relay),
// search, ranking and maintenance, each a real service on the worker's real Postgres, Redis
// and NATS, a fresh database and event stream per test. Maintenance's clock is the test's,
// so memories can be made old without waiting.
import { randomUUID } from "node:crypto";
import { call, connectBus, ensureEventStream } from "@cairn/bus";
import {
  type CommandName,
  commandRpc,
  type DoctorReport,
  type DoctorRequest,
  eventStreamName,
  type GetMemoryReply,
  type MaintenanceJob,
  maintenanceRpcs,
  type PlanResult,
  type Principal,
  type RpcDefinition,
  type RunMaintenanceReply,
  rankingRpcs,
  type StoredEvent,
  searchRpcs,
  type WriteResult,
} from "@cairn/contracts";
import { createDatabasePool, createEventStore, type EventStore, migrateToLatest } from "@cairn/event-store";
import { createMaintenanceService, type MaintenanceService, type Summarizer } from "@cairn/maintenance";
import { type ServiceHandle, startService } from "@cairn/service-runtime";
import { infraTest, waitFor } from "@cairn/testing";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/nats-core";
import type pg from "pg";
import { type ServiceOptions, startServices, testServiceEnv } from "../helpers/in-process-services.ts";

export const tenant = "acme";
export const admin: Principal = { tenant, agent: "ada", role: "admin", primary: true };
export const alice: Principal = { tenant, agent: "alice", role: "agent", primary: false };
export const dayMs = 86_400_000;

export type MaintenanceOptions = {
  env?: Record<string, string>;
  summarizer?: Summarizer;
  /** Options of the other services (search, ranking) and more of maintenance's. */
  services?: ServiceOptions;
};

export type Cairn = {
  nc: NatsConnection;
  pool: pg.Pool;
  store: EventStore;
  env: Record<string, string>;
  /** Maintenance judges ages by this clock; move it forward to make memories old. */
  clock: { now: Date };
  maintenance: MaintenanceService;
  send<T = WriteResult>(command: string, payload: Record<string, unknown>): Promise<T>;
  /** A destructive command: its dry run, then the same command with the token. */
  twoStep(command: string, payload: Record<string, unknown>): Promise<WriteResult>;
  create(memory: Record<string, unknown>, principal?: Principal): Promise<WriteResult>;
  run(
    job: MaintenanceJob,
    options?: { apply?: boolean; params?: Record<string, unknown>; token?: string; principal?: Principal },
  ): Promise<RunMaintenanceReply>;
  doctor(request?: DoctorRequest): Promise<DoctorReport>;
  get(id: string): Promise<GetMemoryReply>;
  /** Waits until search and ranking have applied everything in the log. */
  settle(): Promise<number>;
  /**
   * The log after a position, once everything committed so far is readable (`readAll` stops
   * below the oldest open transaction, a projection's write say, and would show too little).
   */
  logAfter(after: number): Promise<StoredEvent[]>;
  /** Stops the first maintenance copy (the others keep running). */
  stopMaintenance(): Promise<void>;
  /** Starts one more maintenance copy (another instance of the service, same settings). */
  startMaintenanceCopy(
    options?: MaintenanceOptions,
  ): Promise<{ handle: ServiceHandle; service: MaintenanceService }>;
  stop(): Promise<void>;
};

export async function startCairn(
  infra: { databaseUrl: string; redisUrl: string; natsUrl: string; uniqueName: string },
  options: MaintenanceOptions = {},
): Promise<Cairn> {
  await migrateToLatest(infra.databaseUrl);
  const nc = await connectBus({ url: infra.natsUrl, name: `test-${infra.uniqueName}` });
  // A fresh event stream: the worker's NATS is shared by the tests it runs one after another.
  const jsm = await jetstreamManager(nc);
  await jsm.streams.delete(eventStreamName).catch(() => false);
  await ensureEventStream(jsm);
  const env = testServiceEnv(infra, {
    CAIRN_SEARCH_CATCH_UP_MS: "1000",
    CAIRN_RANKING_WAIT_MS: "15000",
    CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS: "20000",
    ...options.env,
  });
  const clock = { now: new Date() };
  const handles: ServiceHandle[] = [];
  const pool = createDatabasePool({ connectionString: infra.databaseUrl, max: 4 });
  const store = createEventStore(pool);
  const makeMaintenance = (o: MaintenanceOptions) =>
    createMaintenanceService({
      ...options.services?.maintenance,
      clock: () => clock.now,
      ...((o.summarizer ?? options.summarizer) ? { summarizer: o.summarizer ?? options.summarizer } : {}),
    });
  const maintenance = makeMaintenance(options);
  try {
    handles.push(...(await startServices(env, ["ingest", "search", "ranking"], options.services)));
    handles.push(await startService(maintenance, { ...env, ...options.env }));
  } catch (error) {
    for (const h of handles.reverse()) await h.stop();
    await nc.close();
    await pool.end();
    throw error;
  }
  const timeout = { timeoutMs: 60_000 };
  const send = <T = WriteResult>(command: string, payload: Record<string, unknown>) =>
    call(nc, commandRpc(command as CommandName) as RpcDefinition, payload, timeout) as Promise<T>;

  const cairn: Cairn = {
    nc,
    pool,
    store,
    env,
    clock,
    maintenance,
    send,
    async twoStep(command, payload) {
      const plan = await send<PlanResult>(command, { ...payload, dryRun: true });
      return send<WriteResult>(command, { ...payload, token: plan.token });
    },
    create: (memory, principal = alice) => send("memory.create", { principal, memory }),
    run: (job, o = {}) =>
      call(
        nc,
        maintenanceRpcs.run,
        {
          principal: o.principal ?? admin,
          job,
          apply: o.apply ?? false,
          ...(o.params ? { params: o.params } : {}),
          ...(o.token ? { token: o.token } : {}),
        },
        timeout,
      ),
    doctor: (r = {}) => call(nc, maintenanceRpcs.doctor, r, timeout),
    get: (id) => call(nc, searchRpcs.get, { principal: admin, id }, timeout),
    async settle() {
      // Everything written, readable yet or not: waiting for less would read too early.
      const position = await store.lastCommittedPosition();
      await call(nc, searchRpcs.status, { afterPosition: position, waitTimeoutMs: 20_000 }, timeout);
      await call(
        nc,
        rankingRpcs.signals,
        { principal: admin, ids: [randomUUID()], afterPosition: position },
        timeout,
      );
      return position;
    },
    async logAfter(after) {
      const committed = await store.lastCommittedPosition();
      await waitFor(async () => (await store.lastPosition()) >= committed, {
        timeoutMs: 20_000,
        description: `the log readable up to position ${committed}`,
      });
      return store.readAll({ after, limit: 10_000 });
    },
    async stopMaintenance() {
      await handles[3]?.stop();
    },
    async startMaintenanceCopy(o = {}) {
      const service = makeMaintenance(o);
      const handle = await startService(service, { ...env, ...options.env, ...o.env });
      handles.push(handle);
      return { handle, service };
    },
    async stop() {
      for (const h of handles.reverse()) await h.stop().catch(() => undefined);
      await nc.close();
      await pool.end();
    },
  };
  return cairn;
}

/** `infraTest` with Cairn's back end running (maintenance options per suite). */
export function cairnTest(options: MaintenanceOptions = {}) {
  return infraTest.extend("cairn", async ({ databaseUrl, redis, nats, uniqueName }, { onCleanup }) => {
    const cairn = await startCairn(
      { databaseUrl, redisUrl: redis.url, natsUrl: nats.url, uniqueName },
      options,
    );
    onCleanup(() => cairn.stop());
    return cairn;
  });
}

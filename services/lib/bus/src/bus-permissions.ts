// Who may publish and subscribe where on NATS: one identity per service, plus an operator
// identity for the command line. Every list is derived from the RPC catalog and the event
// stream's names in `@cairn/contracts`, so a new request or projection gets its permission
// from the same declaration that defines it; the NATS configuration is rendered from here.
//
// The principal in a request is trusted because of these lists: only the gateway and
// maintenance (and the operator) may publish on any subject a service answers, so a
// request that names a principal can only come from them. The server refuses the rest.
import {
  eventStreamName,
  eventSubjectPrefix,
  healthSubject,
  ingestRpcs,
  maintenanceProgressSubject,
  maintenanceRpcs,
  projectionNames,
  projectionRpcs,
  projectionService,
  type RpcDefinition,
  rankingRpcs,
  searchRpcs,
  servedSubjects,
  serviceNames,
} from "@cairn/contracts";

/** The five services, each with its own credentials, and `admin`, the operator's (the CLI). */
export const busIdentities = [...serviceNames, "admin"] as const;
export type BusIdentity = (typeof busIdentities)[number];

export type BusPermissions = {
  publish: string[];
  subscribe: string[];
  /** May answer the requests it receives (publish once to each one's reply subject). */
  allowResponses: boolean;
};

/**
 * Where an identity's replies arrive: `_INBOX.<identity>.…`. Each identity subscribes only
 * to its own inboxes, so no service can read the answers meant for another.
 */
export function busInboxPrefix(identity: string): string {
  return `_INBOX.${identity}`;
}

const subjectsOf = (definitions: readonly RpcDefinition[]) => definitions.map((d) => d.subject);
const allHealth = () => serviceNames.map(healthSubject);

/** The durable consumer of each of a service's projections (the projection runtime's `<service>-<read model>`). */
function projectionDurables(service: (typeof serviceNames)[number]): string[] {
  return projectionNames
    .filter((name) => projectionService(name) === service)
    .map((name) => `${service}-${name.slice(name.indexOf(".") + 1)}`);
}

const js = "$JS.API";

/** JetStream as a projection needs it: its own durable consumers on the event stream, and nothing else's. */
function consumeEvents(durables: readonly string[]): string[] {
  return [
    `${js}.INFO`,
    `${js}.STREAM.INFO.${eventStreamName}`,
    // The lag metric reads the publish time of the oldest event not yet applied.
    `${js}.STREAM.MSG.GET.${eventStreamName}`,
    ...durables.flatMap((durable) => [
      `${js}.CONSUMER.CREATE.${eventStreamName}.${durable}`,
      `${js}.CONSUMER.CREATE.${eventStreamName}.${durable}.>`,
      `${js}.CONSUMER.DURABLE.CREATE.${eventStreamName}.${durable}`,
      `${js}.CONSUMER.INFO.${eventStreamName}.${durable}`,
      `${js}.CONSUMER.MSG.NEXT.${eventStreamName}.${durable}`,
      `$JS.ACK.${eventStreamName}.${durable}.>`,
    ]),
  ];
}

/** What the gateway calls: the agents' commands (not maintenance's), queries, ranking, maintenance. */
function gatewayCalls(): string[] {
  const { inventory: _inventory, reproject: _reproject, ...queries } = searchRpcs;
  return [
    ...subjectsOf(Object.values(ingestRpcs)),
    ...subjectsOf(Object.values(queries)),
    ...subjectsOf(Object.values(rankingRpcs)),
    ...subjectsOf(Object.values(maintenanceRpcs)),
    ...allHealth(),
  ];
}

/** What maintenance calls: every ingest command (its own included), search, ranking, every projection service. */
function maintenanceCalls(): string[] {
  return [
    ...servedSubjects("ingest"),
    ...servedSubjects("search"),
    ...servedSubjects("ranking"),
    ...subjectsOf(Object.values(projectionRpcs("maintenance"))),
    ...allHealth(),
    maintenanceProgressSubject("*"),
  ];
}

function unique(subjects: string[]): string[] {
  return [...new Set(subjects)];
}

/** The publish and subscribe permissions of one identity. */
export function busPermissions(identity: BusIdentity): BusPermissions {
  const inbox = `${busInboxPrefix(identity)}.>`;
  switch (identity) {
    case "admin":
      return { publish: [">"], subscribe: [">"], allowResponses: true };
    case "gateway":
      return {
        publish: unique(gatewayCalls()),
        subscribe: [healthSubject("gateway"), inbox],
        allowResponses: true,
      };
    case "ingest":
      return {
        publish: [
          // Its own health (the container health check runs with the service's credentials).
          healthSubject("ingest"),
          // The relay publishes committed events and keeps the stream's configuration.
          `${eventSubjectPrefix}.>`,
          `${js}.INFO`,
          `${js}.STREAM.INFO.${eventStreamName}`,
          `${js}.STREAM.CREATE.${eventStreamName}`,
          `${js}.STREAM.UPDATE.${eventStreamName}`,
        ],
        subscribe: [...servedSubjects("ingest"), inbox],
        allowResponses: true,
      };
    case "search":
    case "ranking":
      return {
        publish: [
          healthSubject(identity),
          ...consumeEvents(projectionDurables(identity)),
          // Search has ranking re-rank the candidates of a search or a context.
          ...(identity === "search" ? [rankingRpcs.rerank.subject] : []),
        ],
        subscribe: [...servedSubjects(identity), inbox],
        allowResponses: true,
      };
    case "maintenance":
      return {
        publish: unique([
          ...maintenanceCalls(),
          ...consumeEvents(projectionDurables("maintenance")),
          // The doctor lists every consumer of the event stream with its backlog.
          `${js}.CONSUMER.LIST.${eventStreamName}`,
        ]),
        subscribe: [...servedSubjects("maintenance"), inbox],
        allowResponses: true,
      };
    default: {
      const unknown: never = identity;
      throw new Error(`no bus permissions for ${String(unknown)}`);
    }
  }
}

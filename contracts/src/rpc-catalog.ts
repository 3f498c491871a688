// Every request/reply between services, in one place: subject, request and reply schemas,
// and the error codes each may answer. Services serve and call these definitions (through
// `@cairn/bus`'s `serve` and `call`), never a subject string and a cast.

import { z } from "zod";
import {
  IngestReplySchema,
  ingestCommandSchemas,
  ingestSubject,
  twoStepCommandNames,
  WriteResultSchema,
} from "./commands/ingest-commands.ts";
import {
  maintenanceCommandSchemas,
  maintenanceCommandSubject,
  twoStepMaintenanceCommandNames,
} from "./commands/maintenance-commands.ts";
import { type ErrorCode, writeErrorCodes } from "./errors.ts";
import { ExportPageReplySchema, ExportPageRequestSchema } from "./export-format.ts";
import { HealthReplySchema } from "./health.ts";
import { HistoryReplySchema, HistoryRequestSchema } from "./history.ts";
import { DoctorReportSchema, DoctorRequestSchema } from "./maintenance/doctor.ts";
import {
  MaintenanceStatusReplySchema,
  MaintenanceStatusRequestSchema,
  maintenanceSubjects,
  RunMaintenanceReplySchema,
  RunMaintenanceRequestSchema,
} from "./maintenance/requests.ts";
import {
  DeadLettersReplySchema,
  DeadLettersRequestSchema,
  ProjectionsStatusReplySchema,
  ProjectionsStatusRequestSchema,
  RetryDeadLettersReplySchema,
  RetryDeadLettersRequestSchema,
} from "./projections.ts";
import {
  CandidateIdsReplySchema,
  CandidateIdsRequestSchema,
  CandidatesReplySchema,
  CandidatesRequestSchema,
  CountReplySchema,
  CountRequestSchema,
  DocumentsReplySchema,
  DocumentsRequestSchema,
  GetMemoryReplySchema,
  GetMemoryRequestSchema,
  SearchStatusReplySchema,
  SearchStatusRequestSchema,
  searchSubjects,
} from "./queries.ts";
import {
  ExpandReplySchema,
  ExpandRequestSchema,
  KeysReadReplySchema,
  KeysReadRequestSchema,
  KeysRecallReplySchema,
  KeysRecallRequestSchema,
  KeysRelatedReplySchema,
  KeysRelatedRequestSchema,
  RerankReplySchema,
  RerankRequestSchema,
  rankingSubjects,
  SignalsReplySchema,
  SignalsRequestSchema,
} from "./ranking.ts";
import { ResultsReplySchema, ResultsRequestSchema } from "./results.ts";
import { defineRpc, type RpcDefinition } from "./rpc.ts";
import {
  InventoryReplySchema,
  InventoryRequestSchema,
  ReprojectReplySchema,
  ReprojectRequestSchema,
  searchRepairSubjects,
} from "./search-repair.ts";
import { type BackendServiceName, healthSubject, type ServiceName } from "./subjects.ts";

type TwoStep = (typeof twoStepCommandNames)[number] | (typeof twoStepMaintenanceCommandNames)[number];
/** A two-step command answers its plan (a dry run) or its write; the others their write. */
type ReplyOf<N> = N extends TwoStep ? typeof IngestReplySchema : typeof WriteResultSchema;

type IngestRpcs = {
  [N in keyof typeof ingestCommandSchemas]: RpcDefinition<(typeof ingestCommandSchemas)[N], ReplyOf<N>>;
};
type MaintenanceCommandRpcs = {
  [N in keyof typeof maintenanceCommandSchemas]: RpcDefinition<
    (typeof maintenanceCommandSchemas)[N],
    ReplyOf<N>
  >;
};

const twoStep: ReadonlySet<string> = new Set([...twoStepCommandNames, ...twoStepMaintenanceCommandNames]);

function commandRpcs<S extends Record<string, z.ZodType>>(
  schemas: S,
  subject: (name: keyof S & string) => string,
) {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, request]) => [
      name,
      defineRpc({
        subject: subject(name),
        request,
        reply: twoStep.has(name) ? IngestReplySchema : WriteResultSchema,
        errors: writeErrorCodes,
      }),
    ]),
  );
}

/** `cairn.ingest.<command>`: the agents' commands and the maintenance ones, each answering a write result or a plan. */
export const ingestRpcs = commandRpcs(ingestCommandSchemas, (n) =>
  ingestSubject(n as keyof typeof ingestCommandSchemas),
) as IngestRpcs;
export const maintenanceCommandRpcs = commandRpcs(maintenanceCommandSchemas, (n) =>
  maintenanceCommandSubject(n as keyof typeof maintenanceCommandSchemas),
) as MaintenanceCommandRpcs;

/** Every command ingest answers: the agents' ones and the maintenance ones. */
export type CommandName = keyof IngestRpcs | keyof MaintenanceCommandRpcs;

type AllCommandRpcs = IngestRpcs & MaintenanceCommandRpcs;

/** The RPC of an ingest command by its name. */
export function commandRpc<N extends CommandName>(name: N): AllCommandRpcs[N] {
  const definition =
    (ingestRpcs as Record<string, RpcDefinition>)[name] ??
    (maintenanceCommandRpcs as Record<string, RpcDefinition>)[name];
  if (!definition) throw new Error(`no ingest command ${name}`);
  return definition as AllCommandRpcs[N];
}

const readErrors = ["not_found", "forbidden"] as const satisfies readonly ErrorCode[];

export const searchRpcs = {
  candidates: defineRpc({
    subject: searchSubjects.candidates,
    request: CandidatesRequestSchema,
    reply: CandidatesReplySchema,
    errors: [],
  }),
  candidateIds: defineRpc({
    subject: searchSubjects.candidateIds,
    request: CandidateIdsRequestSchema,
    reply: CandidateIdsReplySchema,
    errors: [],
  }),
  documents: defineRpc({
    subject: searchSubjects.documents,
    request: DocumentsRequestSchema,
    reply: DocumentsReplySchema,
    errors: [],
  }),
  results: defineRpc({
    subject: searchSubjects.results,
    request: ResultsRequestSchema,
    reply: ResultsReplySchema,
    errors: [],
  }),
  count: defineRpc({
    subject: searchSubjects.count,
    request: CountRequestSchema,
    reply: CountReplySchema,
    errors: [],
  }),
  get: defineRpc({
    subject: searchSubjects.get,
    request: GetMemoryRequestSchema,
    reply: GetMemoryReplySchema,
    errors: readErrors,
  }),
  history: defineRpc({
    subject: searchSubjects.history,
    request: HistoryRequestSchema,
    reply: HistoryReplySchema,
    errors: readErrors,
  }),
  export: defineRpc({
    subject: searchSubjects.export,
    request: ExportPageRequestSchema,
    reply: ExportPageReplySchema,
    errors: [],
  }),
  status: defineRpc({
    subject: searchSubjects.status,
    request: SearchStatusRequestSchema,
    reply: SearchStatusReplySchema,
    errors: [],
  }),
  inventory: defineRpc({
    subject: searchRepairSubjects.inventory,
    request: InventoryRequestSchema,
    reply: InventoryReplySchema,
    errors: [],
  }),
  reproject: defineRpc({
    subject: searchRepairSubjects.reproject,
    request: ReprojectRequestSchema,
    reply: ReprojectReplySchema,
    errors: [],
  }),
} as const;

export const rankingRpcs = {
  expand: defineRpc({
    subject: rankingSubjects.expand,
    request: ExpandRequestSchema,
    reply: ExpandReplySchema,
    errors: [],
  }),
  rerank: defineRpc({
    subject: rankingSubjects.rerank,
    request: RerankRequestSchema,
    reply: RerankReplySchema,
    errors: [],
  }),
  signals: defineRpc({
    subject: rankingSubjects.signals,
    request: SignalsRequestSchema,
    reply: SignalsReplySchema,
    errors: [],
  }),
  keysRecall: defineRpc({
    subject: rankingSubjects.keysRecall,
    request: KeysRecallRequestSchema,
    reply: KeysRecallReplySchema,
    errors: [],
  }),
  keysRead: defineRpc({
    subject: rankingSubjects.keysRead,
    request: KeysReadRequestSchema,
    reply: KeysReadReplySchema,
    errors: ["not_found"],
  }),
  keysRelated: defineRpc({
    subject: rankingSubjects.keysRelated,
    request: KeysRelatedRequestSchema,
    reply: KeysRelatedReplySchema,
    errors: ["not_found"],
  }),
} as const;

export const maintenanceRpcs = {
  run: defineRpc({
    subject: maintenanceSubjects.run,
    request: RunMaintenanceRequestSchema,
    reply: RunMaintenanceReplySchema,
    errors: ["forbidden", "precondition_required", "token_invalid"],
  }),
  doctor: defineRpc({
    subject: maintenanceSubjects.doctor,
    request: DoctorRequestSchema,
    reply: DoctorReportSchema,
    errors: [],
  }),
  status: defineRpc({
    subject: maintenanceSubjects.status,
    request: MaintenanceStatusRequestSchema,
    reply: MaintenanceStatusReplySchema,
    errors: [],
  }),
} as const;

/** `cairn.health.<service>`: the service's dependencies and how it is. */
export function healthRpc(service: ServiceName) {
  return defineRpc({
    subject: healthSubject(service),
    request: z.object({}).loose(),
    reply: HealthReplySchema,
    errors: [],
  });
}

/** Each backend service answers for its projections: status, dead letters, and their retry. */
export function projectionRpcs(service: BackendServiceName) {
  return {
    status: defineRpc({
      subject: `cairn.${service}.projections.status`,
      request: ProjectionsStatusRequestSchema,
      reply: ProjectionsStatusReplySchema,
      errors: [],
    }),
    deadLetters: defineRpc({
      subject: `cairn.${service}.projections.dead_letters`,
      request: DeadLettersRequestSchema,
      reply: DeadLettersReplySchema,
      errors: [],
    }),
    retryDeadLetters: defineRpc({
      subject: `cairn.${service}.projections.retry`,
      request: RetryDeadLettersRequestSchema,
      reply: RetryDeadLettersReplySchema,
      errors: [],
    }),
  } as const;
}

/** Every subject a service answers requests on (for bus permissions and documentation). */
export function servedSubjects(service: BackendServiceName): string[] {
  const own = {
    ingest: [...Object.values(ingestRpcs), ...Object.values(maintenanceCommandRpcs)],
    search: Object.values(searchRpcs),
    ranking: Object.values(rankingRpcs),
    maintenance: Object.values(maintenanceRpcs),
  }[service] as RpcDefinition[];
  const projections = service === "ingest" ? [] : Object.values(projectionRpcs(service));
  return [...own.map((d) => d.subject), healthRpc(service).subject, ...projections.map((d) => d.subject)];
}

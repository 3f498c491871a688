export type { ApiKeyRecord, CreateApiKeyRequest, CreatedApiKey } from "./api-keys.ts";
export {
  ApiKeyRecordSchema,
  apiKeyPrefix,
  CreateApiKeyRequestSchema,
  CreatedApiKeySchema,
} from "./api-keys.ts";
export type {
  IngestCommand,
  IngestCommandName,
  IngestReply,
  MemoryInput,
  PlanResult,
  WriteResult,
} from "./commands/ingest-commands.ts";
export {
  IngestReplySchema,
  ingestCommandNames,
  ingestCommandSchemas,
  ingestSubject,
  MemoryChangesSchema,
  MemoryInputSchema,
  PlanResultSchema,
  planTokenTtlMs,
  twoStepCommandNames,
  WriteResultSchema,
} from "./commands/ingest-commands.ts";
export type { MaintenanceCommand, MaintenanceCommandName } from "./commands/maintenance-commands.ts";
export {
  maintenanceCommandSchemas,
  maintenanceCommandSubject,
  twoStepMaintenanceCommandNames,
} from "./commands/maintenance-commands.ts";
export type { ContentKeysReply, ContentKeysRequest } from "./content-keys.ts";
export {
  ContentKeysReplySchema,
  ContentKeysRequestSchema,
  contentKeysReply,
  contentKeysSubject,
  remoteContentKeyring,
} from "./content-keys.ts";
export type { CairnErrorOptions, ErrorBody, ErrorCode } from "./errors.ts";
export { CairnError, ErrorBodySchema, ErrorCodeSchema, errorCodes, isCairnError } from "./errors.ts";
export type { CairnEvent, EventData, EventType, NewEvent } from "./events/catalog.ts";
export {
  currentSchemaVersion,
  eventSchemas,
  eventStreamName,
  eventSubject,
  eventSubjectPrefix,
  eventTypes,
  isEventType,
  streamTypeOf,
} from "./events/catalog.ts";
export type { EventMeta, StoredEvent, StreamType } from "./events/envelope.ts";
export {
  EventMetaSchema,
  StoredEventSchema,
  StreamTypeSchema,
  streamIdFor,
  streamTypes,
} from "./events/envelope.ts";
export { maintenanceEventSchemas, memoryErasureEventSchemas } from "./events/maintenance-events.ts";
export type { MemoryBody } from "./events/memory-events.ts";
export { MemoryBodySchema, memoryEventSchemas } from "./events/memory-events.ts";
export type { KeyType, RankingWeights, TenantSettings } from "./events/other-events.ts";
export {
  activityEventSchemas,
  KeyTypeSchema,
  keyEventSchemas,
  keyTypes,
  RankingWeightsSchema,
  TenantSettingsSchema,
  tenantEventSchemas,
} from "./events/other-events.ts";
export type { DependencyState, HealthReply } from "./health.ts";
export { DependencyStateSchema, HealthReplySchema } from "./health.ts";
export { keyIdFor, normaliseKeyLabel } from "./key-id.ts";
export type {
  DoctorFinding,
  DoctorReport,
  DoctorRequest,
  DriftReport,
  JobSchedule,
  MaintenanceAction,
  MaintenanceJob,
  MaintenanceParams,
  MaintenanceProgress,
  MaintenanceRunRecord,
  MaintenanceSettings,
  MaintenanceStatusReply,
  MaintenanceStatusRequest,
  RunMaintenanceReply,
  RunMaintenanceRequest,
} from "./maintenance.ts";
export {
  ConsolidationParamsSchema,
  DedupParamsSchema,
  DoctorFindingSchema,
  DoctorReportSchema,
  DoctorRequestSchema,
  DriftReportSchema,
  defaultMaintenanceParams,
  defaultMaintenanceSchedules,
  doctorSeverities,
  ForgettingParamsSchema,
  GcParamsSchema,
  JobScheduleSchema,
  MaintenanceActionSchema,
  MaintenanceJobSchema,
  MaintenanceProgressSchema,
  MaintenanceRunRecordSchema,
  MaintenanceSettingsSchema,
  MaintenanceStatusReplySchema,
  MaintenanceStatusRequestSchema,
  maintenanceActions,
  maintenanceAgent,
  maintenanceJobs,
  maintenanceParamsSchemas,
  maintenanceProgressSubject,
  maintenanceSubjects,
  maxRecordedActions,
  RepairParamsSchema,
  RunMaintenanceReplySchema,
  RunMaintenanceRequestSchema,
  SynonymParamsSchema,
  VerificationParamsSchema,
} from "./maintenance.ts";
export type { Entity, Kind, MemoryDocument, Scope, Status, Tier } from "./memory.ts";
export {
  EntitySchema,
  EntityTypeSchema,
  entityTypes,
  IdSchema,
  KindSchema,
  kinds,
  limits,
  MemoryDocumentSchema,
  ScopeSchema,
  SlotSchema,
  StatusSchema,
  scopes,
  statuses,
  TierSchema,
  TimestampSchema,
  tiers,
} from "./memory.ts";
export type { Principal, Role } from "./principal.ts";
export { AgentIdSchema, PrincipalSchema, RoleSchema, roles, TenantIdSchema } from "./principal.ts";
export type {
  Candidate,
  CandidatesReply,
  CandidatesRequest,
  GetMemoryReply,
  GetMemoryRequest,
  LinkRef,
  ParsedCandidatesRequest,
  ProjectionName,
  ProjectionStatus,
  RetrievalMode,
  RetrieverHit,
  SearchFilters,
  SearchFiltersInput,
  SearchStatusReply,
  SearchStatusRequest,
} from "./queries.ts";
export {
  CandidateSchema,
  CandidatesReplySchema,
  CandidatesRequestSchema,
  GetMemoryReplySchema,
  GetMemoryRequestSchema,
  LinkRefSchema,
  listAllQuery,
  maxWaitTimeoutMs,
  ProjectionNameSchema,
  ProjectionStatusSchema,
  projectionNames,
  RetrievalModeSchema,
  RetrieverHitSchema,
  retrievalModes,
  rrfK,
  SearchFiltersSchema,
  SearchStatusReplySchema,
  SearchStatusRequestSchema,
  searchSubjects,
} from "./queries.ts";
export type {
  ExpandReply,
  ExpandRequest,
  Expansion,
  KeyedMemory,
  KeyMatch,
  KeysReadReply,
  KeysReadRequest,
  KeysRecallReply,
  KeysRecallRequest,
  KeysRelatedReply,
  KeysRelatedRequest,
  MemorySignals,
  RankedResult,
  RankingFactors,
  RerankReply,
  RerankRequest,
  SignalsReply,
  SignalsRequest,
  SkipReason,
} from "./ranking.ts";
export {
  defaultRankingWeights,
  defaultTenantSettings,
  ExpandReplySchema,
  ExpandRequestSchema,
  ExpansionSchema,
  KeyedMemorySchema,
  KeyMatchSchema,
  KeysReadReplySchema,
  KeysReadRequestSchema,
  KeysRecallReplySchema,
  KeysRecallRequestSchema,
  KeysRelatedReplySchema,
  KeysRelatedRequestSchema,
  MemorySignalsSchema,
  RankedResultSchema,
  RankingFactorsSchema,
  RerankReplySchema,
  RerankRequestSchema,
  rankingSubjects,
  SignalsReplySchema,
  SignalsRequestSchema,
  SkipReasonSchema,
} from "./ranking.ts";
export type { RpcReply } from "./rpc.ts";
export { RpcReplySchema, traceHeaderNames } from "./rpc.ts";
export type { ContentKeyring, ContentKeyState } from "./sealed-content.ts";
export {
  contentKeyBytes,
  isSealed,
  newContentKey,
  openMemoryFields,
  openSealedEvents,
  openSealedText,
  SealedContentError,
  sealedEventTypes,
  sealedMemoryIdOf,
  sealedPrefix,
  sealMemoryFields,
  sealText,
} from "./sealed-content.ts";
export type {
  InventoryDocument,
  InventoryReply,
  InventoryRequest,
  ReprojectReply,
  ReprojectRequest,
} from "./search-repair.ts";
export {
  InventoryDocumentSchema,
  InventoryReplySchema,
  InventoryRequestSchema,
  ReprojectReplySchema,
  ReprojectRequestSchema,
  searchRepairSubjects,
} from "./search-repair.ts";
export type { BackendServiceName, ServiceName } from "./subjects.ts";
export { backendServiceNames, healthSubject, queueGroup, serviceNames } from "./subjects.ts";

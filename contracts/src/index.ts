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
  Recall,
  WriteResult,
} from "./commands/ingest-commands.ts";
export {
  IngestReplySchema,
  ingestCommandNames,
  ingestCommandSchemas,
  ingestSubject,
  isPlanResult,
  MemoryChangesSchema,
  MemoryInputSchema,
  PlanResultSchema,
  planTokenTtlMs,
  RecallSchema,
  twoStepCommandNames,
  WriteResultSchema,
} from "./commands/ingest-commands.ts";
export type { MaintenanceCommand, MaintenanceCommandName } from "./commands/maintenance-commands.ts";
export {
  maintenanceCommandSchemas,
  maintenanceCommandSubject,
  twoStepMaintenanceCommandNames,
} from "./commands/maintenance-commands.ts";
export type { CairnErrorOptions, ErrorBody, ErrorCode } from "./errors.ts";
export { CairnError, ErrorBodySchema, ErrorCodeSchema, errorCodes, isCairnError } from "./errors.ts";
export type { CairnEvent, EventData, EventType, NewEvent } from "./events/catalog.ts";
export {
  currentSchemaVersion,
  eventSchemas,
  eventStreamName,
  eventSubjectPrefix,
  eventTypes,
  isEventType,
  relaySubject,
  streamTypeOf,
} from "./events/catalog.ts";
export type { DecodedEvent, DecodedEventOf, EventDecodeReason } from "./events/decode-event.ts";
export {
  decodeEventBytes,
  decodeStoredEvent,
  EventDecodeError,
  eventDecodeReasons,
  isEventDecodeError,
} from "./events/decode-event.ts";
export type { EventMeta, RelayedEvents, StoredEvent, StreamType } from "./events/envelope.ts";
export {
  EventMetaSchema,
  RelayedEventsSchema,
  StoredEventSchema,
  StreamTypeSchema,
  streamIdFor,
  streamTypes,
} from "./events/envelope.ts";
export { maintenanceEventSchemas, memoryErasureEventSchemas } from "./events/maintenance-events.ts";
export type { MemoryBody } from "./events/memory-events.ts";
export { MemoryBodySchema, memoryEventSchemas } from "./events/memory-events.ts";
export type { KeyType, RankingWeights, RetrievalSettings, TenantSettings } from "./events/other-events.ts";
export {
  activityEventSchemas,
  defaultRetrievalSettings,
  KeyTypeSchema,
  keyEventSchemas,
  keyTypes,
  RankingWeightsSchema,
  RetrievalSettingsSchema,
  TenantSettingsSchema,
  tenantEventSchemas,
} from "./events/other-events.ts";
export type { SearchExplanation } from "./explanation.ts";
export { SearchExplanationSchema } from "./explanation.ts";
export type {
  CairnExportEnd,
  CairnExportHeader,
  CairnExportRecord,
  CairnExportVersion,
  ExportPageReply,
  ExportPageRequest,
  MemoryStreamEventType,
} from "./export-format.ts";
export {
  CairnExportEndSchema,
  CairnExportHeaderSchema,
  CairnExportRecordSchema,
  CairnExportVersionSchema,
  cairnExportFormat,
  cairnExportVersion,
  ExportPageReplySchema,
  ExportPageRequestSchema,
  memoryStreamEventTypes,
} from "./export-format.ts";
export type { DependencyState, HealthReply } from "./health.ts";
export { DependencyStateSchema, HealthReplySchema } from "./health.ts";
export type { AsOf, HistoryReply, HistoryRequest, MemoryVersion } from "./history.ts";
export { AsOfSchema, HistoryReplySchema, HistoryRequestSchema, MemoryVersionSchema } from "./history.ts";
export { keyIdFor, normaliseKeyLabel } from "./key-id.ts";
export type { DoctorFinding, DoctorReport, DoctorRequest, DriftReport } from "./maintenance/doctor.ts";
export {
  DoctorFindingSchema,
  DoctorReportSchema,
  DoctorRequestSchema,
  DriftReportSchema,
  doctorSeverities,
} from "./maintenance/doctor.ts";
export type {
  JobSchedule,
  MaintenanceJob,
  MaintenanceParams,
  MaintenanceSettings,
} from "./maintenance/jobs.ts";
export {
  ConsolidationParamsSchema,
  DedupParamsSchema,
  defaultMaintenanceParams,
  defaultMaintenanceSchedules,
  ForgettingParamsSchema,
  GcParamsSchema,
  JobScheduleSchema,
  MaintenanceJobSchema,
  MaintenanceSettingsSchema,
  maintenanceAgent,
  maintenanceJobs,
  maintenanceParamsSchemas,
  RepairParamsSchema,
  SynonymParamsSchema,
  VerificationParamsSchema,
} from "./maintenance/jobs.ts";
export type {
  MaintenanceProgress,
  MaintenanceStatusReply,
  MaintenanceStatusRequest,
  RunMaintenanceReply,
  RunMaintenanceRequest,
} from "./maintenance/requests.ts";
export {
  MaintenanceProgressSchema,
  MaintenanceStatusReplySchema,
  MaintenanceStatusRequestSchema,
  maintenanceProgressSubject,
  maintenanceSubjects,
  RunMaintenanceReplySchema,
  RunMaintenanceRequestSchema,
} from "./maintenance/requests.ts";
export type { MaintenanceAction, MaintenanceRunRecord } from "./maintenance/run-record.ts";
export {
  MaintenanceActionSchema,
  MaintenanceRunRecordSchema,
  maintenanceActions,
  maxRecordedActions,
} from "./maintenance/run-record.ts";
export type { Entity, Episode, Kind, MemoryDocument, Scope, Status, Tier } from "./memory.ts";
export {
  EntitySchema,
  EntityTypeSchema,
  EpisodeSchema,
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
export { issuePath, parseRequest, validationError } from "./parse-request.ts";
export type { Principal, Role } from "./principal.ts";
export { AgentIdSchema, PrincipalSchema, RoleSchema, roles, TenantIdSchema } from "./principal.ts";
export type {
  DeadLetterRecord,
  DeadLettersReply,
  DeadLettersRequest,
  ProjectionName,
  ProjectionStatus,
  ProjectionsStatusReply,
  ProjectionsStatusRequest,
  RetryDeadLettersReply,
  RetryDeadLettersRequest,
} from "./projections.ts";
export {
  DeadLetterSchema,
  DeadLettersReplySchema,
  DeadLettersRequestSchema,
  ProjectionNameSchema,
  ProjectionStatusSchema,
  ProjectionsStatusReplySchema,
  ProjectionsStatusRequestSchema,
  projectionNames,
  projectionService,
  projectionShortNames,
  RetryDeadLettersReplySchema,
  RetryDeadLettersRequestSchema,
  resolveProjectionName,
} from "./projections.ts";
export type {
  Candidate,
  CandidateIdsReply,
  CandidateIdsRequest,
  CandidateScores,
  CandidatesReply,
  CandidatesRequest,
  CountReply,
  CountRequest,
  DocumentsReply,
  DocumentsRequest,
  GetMemoryReply,
  GetMemoryRequest,
  LinkRef,
  ParsedCandidatesRequest,
  RetrievalMode,
  RetrieverHit,
  RetrieverName,
  SearchFilters,
  SearchFiltersInput,
  SearchStatusReply,
  SearchStatusRequest,
} from "./queries.ts";
export {
  CandidateIdsReplySchema,
  CandidateIdsRequestSchema,
  CandidateSchema,
  CandidateScoresSchema,
  CandidatesReplySchema,
  CandidatesRequestSchema,
  CountReplySchema,
  CountRequestSchema,
  DocumentsReplySchema,
  DocumentsRequestSchema,
  GetMemoryReplySchema,
  GetMemoryRequestSchema,
  LinkRefSchema,
  listAllQuery,
  maxDocumentsPerRequest,
  maxWaitTimeoutMs,
  RetrievalModeSchema,
  RetrieverHitSchema,
  RetrieverNameSchema,
  retrievalModes,
  retrieverNames,
  SearchFiltersSchema,
  SearchStatusReplySchema,
  SearchStatusRequestSchema,
  searchSubjects,
} from "./queries.ts";
export type {
  AnswerKind,
  ExpandReply,
  ExpandRequest,
  Expansion,
  IntentMatch,
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
  RerankCandidate,
  RerankReply,
  RerankRequest,
  SignalsReply,
  SignalsRequest,
  SkipReason,
} from "./ranking.ts";
export {
  AnswerKindSchema,
  answerKinds,
  defaultRankingWeights,
  defaultTenantSettings,
  ExpandReplySchema,
  ExpandRequestSchema,
  ExpansionSchema,
  IntentMatchSchema,
  KeyedMemorySchema,
  KeyMatchSchema,
  KeysReadReplySchema,
  KeysReadRequestSchema,
  KeysRecallReplySchema,
  KeysRecallRequestSchema,
  KeysRelatedReplySchema,
  KeysRelatedRequestSchema,
  MemorySignalsSchema,
  noMemorySignals,
  RankedResultSchema,
  RankingFactorsSchema,
  RerankCandidateSchema,
  RerankReplySchema,
  RerankRequestSchema,
  rankingSubjects,
  SignalsReplySchema,
  SignalsRequestSchema,
  SkipReasonSchema,
} from "./ranking.ts";
export type { FinalResult, ResultsReply, ResultsRequest } from "./results.ts";
export { FinalResultSchema, ResultsReplySchema, ResultsRequestSchema } from "./results.ts";
export type { RpcDefinition, RpcParsedRequest, RpcReply, RpcReplyData, RpcRequest } from "./rpc.ts";
export { defineRpc, RpcReplySchema, traceHeaderNames } from "./rpc.ts";
export type { CommandName } from "./rpc-catalog.ts";
export {
  commandRpc,
  healthRpc,
  ingestRpcs,
  maintenanceCommandRpcs,
  maintenanceRpcs,
  projectionRpcs,
  rankingRpcs,
  searchRpcs,
  servedSubjects,
} from "./rpc-catalog.ts";
export type { SealRing, SealState } from "./sealed-content.ts";
export {
  isSealed,
  newSeal,
  openFoldedDocument,
  openMemoryFields,
  openSealedEvents,
  openSealedText,
  SealedContentError,
  sealBytes,
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
export { normaliseSlot } from "./slot.ts";
export type { BackendServiceName, ServiceName } from "./subjects.ts";
export { backendServiceNames, healthSubject, queueGroup, serviceNames } from "./subjects.ts";

export type { BaseEnv } from "./base-env.ts";
export { baseEnvSchema, parseEnv } from "./base-env.ts";
export { isDependencyFailure, reportOutage } from "./dependency-failure.ts";
export type {
  DependencyCheck,
  ServiceContext,
  ServiceDefinition,
  ServiceHandle,
  StartedService,
} from "./run-service.ts";
export { runService, startService } from "./run-service.ts";
export { serveReportingOutages } from "./serve-reporting-outages.ts";

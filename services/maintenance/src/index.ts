// What the maintenance package offers the rest of Cairn: the service, its view opened the way
// the service opens it (for `pnpm cairn rebuild` and `doctor`), and the doctor's report.

export { createSearchRepairClient } from "./clients/search-repair-client.ts";
export { buildDoctorReport } from "./doctor/build-doctor-report.ts";
export type { DoctorDeps } from "./doctor/doctor-check.ts";
export { doctorReportMarkdown } from "./doctor/format-doctor-report.ts";
export type { MaintenanceEnv } from "./env.ts";
export { maintenanceEnvSchema } from "./env.ts";
export type { MaintenanceService, MaintenanceServiceOptions } from "./maintenance-service.ts";
export { createMaintenanceService, openMaintenanceProjections } from "./maintenance-service.ts";
export { createTenantLocks } from "./runner/runner-lock.ts";
export { extractiveSummarizer } from "./summary/extractive-summary.ts";
export type { Summarizer } from "./summary/summarizer.ts";

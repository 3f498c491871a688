// The schedule and parameters a job runs with, per tenant: the contract's defaults, then the
// deployment's environment, then the tenant's settings (`maintenance` in tenant settings),
// then, for a run asked for by hand, the request's parameter overrides.
import {
  CairnError,
  defaultMaintenanceParams,
  defaultMaintenanceSchedules,
  type JobSchedule,
  type MaintenanceJob,
  type MaintenanceParams,
  type MaintenanceSettings,
  maintenanceJobs,
  maintenanceParamsSchemas,
} from "@cairn/contracts";
import { jobEnvName } from "../env.ts";

export type DeploymentSchedules = Record<MaintenanceJob, JobSchedule>;

/** The schedules of the deployment: the contract's defaults with the environment on top. */
export function deploymentSchedules(env: Record<string, unknown>): DeploymentSchedules {
  const out = {} as DeploymentSchedules;
  for (const job of maintenanceJobs) {
    const d = defaultMaintenanceSchedules[job];
    const enabled = env[jobEnvName(job, "ENABLED")];
    const every = env[jobEnvName(job, "EVERY_MINUTES")];
    const apply = env[jobEnvName(job, "APPLY")];
    out[job] = {
      enabled: typeof enabled === "boolean" ? enabled : d.enabled,
      everyMinutes: typeof every === "number" ? every : d.everyMinutes,
      apply: typeof apply === "boolean" ? apply : d.apply,
    };
  }
  return out;
}

export function tenantSchedule(
  job: MaintenanceJob,
  deployment: DeploymentSchedules,
  tenant: MaintenanceSettings,
): JobSchedule {
  const own = tenant[job] ?? {};
  const base = deployment[job];
  return {
    enabled: own.enabled ?? base.enabled,
    everyMinutes: own.everyMinutes ?? base.everyMinutes,
    apply: own.apply ?? base.apply,
  };
}

/** The job's parameters: defaults, the tenant's, then the request's (validated, `validation_failed` otherwise). */
export function jobParams<J extends MaintenanceJob>(
  job: J,
  tenant: MaintenanceSettings,
  overrides: Record<string, unknown> | undefined,
): MaintenanceParams[J] {
  const merged = {
    ...defaultMaintenanceParams[job],
    ...((tenant[job]?.params ?? {}) as object),
    ...(overrides ?? {}),
  };
  const parsed = maintenanceParamsSchemas[job].safeParse(merged);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new CairnError(
      "validation_failed",
      `the ${job} parameters are not valid: ${issue?.path.join(".") || "(params)"}: ${issue?.message ?? ""}`,
      {
        hint: `allowed parameters: ${Object.keys(defaultMaintenanceParams[job]).join(", ")}`,
        details: { issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })) },
      },
    );
  }
  return parsed.data as MaintenanceParams[J];
}

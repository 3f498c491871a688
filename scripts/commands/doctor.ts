// `pnpm cairn doctor [--format json|markdown]`: the health report. Asked of the running
// maintenance service; when that does not answer, the report is built right here from the
// log, Postgres and the other services (a doctor must work when things are broken).
import { parseArgs } from "node:util";
import { call, connectBus } from "@cairn/bus";
import {
  type DoctorReport,
  DoctorRequestSchema,
  isCairnError,
  maintenanceRpcs,
  TenantIdSchema,
} from "@cairn/contracts";
import {
  buildDoctorReport,
  createSearchRepairClient,
  doctorReportMarkdown,
  maintenanceEnvSchema,
  openMaintenanceProjections,
} from "@cairn/maintenance";
import { parseEnv } from "@cairn/service-runtime";
import { createLogger } from "@cairn/telemetry";

export const summary = "health report: lag, dead letters, read models against the log, open work";

const usage = `usage: pnpm cairn doctor [--format markdown|json] [--tenant <tenant>] [--full | --sample <n>]
                        [--summary]

Checks projection lag per consumer, the relay backlog, dead letters, documents in the read
models that the log does not explain and the reverse (a sample, or --full), verification due
and inbox age. The report names memories by id only, never their content.

  --format   markdown (default) or json
  --tenant   one tenant's documents and open work (default: every tenant)
  --full     compare every document (default: a sample of --sample, 500)
  --summary  status, summary line and findings only (cheap)

Exit code 0 for ok or warn, 1 for error findings, 2 for bad usage. Repair what it finds with
\`pnpm cairn maintenance repair --tenant <tenant> [--apply]\`.`;

/** Builds the report in this process (the maintenance service is down or not started). */
async function localReport(request: ReturnType<typeof DoctorRequestSchema.parse>): Promise<DoctorReport> {
  const env = parseEnv(maintenanceEnvSchema, process.env, { service: "maintenance" });
  const host = openMaintenanceProjections(env, createLogger("doctor", "warn"));
  const { pool, view } = host;
  const nc = await connectBus({ url: env.CAIRN_NATS_URL, name: "cairn-cli-doctor", connectTimeoutMs: 5000 });
  try {
    const timeoutMs = Math.min(env.CAIRN_MAINTENANCE_REQUEST_TIMEOUT_MS, 30_000);
    return await buildDoctorReport(
      {
        pool,
        nc,
        view,
        searchRepair: createSearchRepairClient(nc, timeoutMs),
        now: () => new Date(),
        timeoutMs,
      },
      request,
    );
  } finally {
    await nc.close();
    await host.close();
  }
}

export async function run(args: string[]): Promise<number> {
  let values: {
    format?: string | undefined;
    tenant?: string | undefined;
    full?: boolean | undefined;
    sample?: string | undefined;
    summary?: boolean | undefined;
    help?: boolean | undefined;
  };
  try {
    ({ values } = parseArgs({
      args,
      options: {
        format: { type: "string", default: "markdown" },
        tenant: { type: "string" },
        full: { type: "boolean", default: false },
        sample: { type: "string" },
        summary: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  if (values.help) {
    console.log(usage);
    return 0;
  }
  if (values.format !== "markdown" && values.format !== "json") {
    console.error(`--format is markdown or json\n\n${usage}`);
    return 2;
  }
  if (values.tenant !== undefined && !TenantIdSchema.safeParse(values.tenant).success) {
    console.error(`not a tenant id: ${values.tenant}`);
    return 2;
  }
  const sample = values.sample === undefined ? undefined : Number(values.sample);
  if (sample !== undefined && (!Number.isInteger(sample) || sample < 1)) {
    console.error("--sample takes a positive whole number");
    return 2;
  }
  const request = DoctorRequestSchema.parse({
    ...(values.tenant ? { tenant: values.tenant } : {}),
    full: values.full,
    summaryOnly: values.summary,
    ...(sample ? { sampleSize: sample } : {}),
  });

  const env = parseEnv(maintenanceEnvSchema, process.env, { service: "maintenance" });
  let report: DoctorReport;
  const nc = await connectBus({ url: env.CAIRN_NATS_URL, name: "cairn-cli-doctor", connectTimeoutMs: 5000 });
  try {
    report = await call(nc, maintenanceRpcs.doctor, request, { timeoutMs: 10 * 60_000 });
  } catch (error) {
    if (!(isCairnError(error) && error.code === "unavailable")) throw error;
    process.stderr.write("the maintenance service does not answer; building the report here\n");
    report = await localReport(request);
  } finally {
    await nc.close();
  }
  console.log(values.format === "json" ? JSON.stringify(report, null, 2) : doctorReportMarkdown(report));
  return report.status === "error" ? 1 : 0;
}

// `pnpm cairn maintenance <job> [--tenant T] [--apply]`: runs a maintenance job now, through
// the running maintenance service (so its runner lock holds for hand-started runs too), and
// shows the run's progress while it works. Without --apply it is a dry run: nothing changes
// and the report says what would. `pnpm cairn maintenance status` shows the schedules.
import { randomUUID } from "node:crypto";
import { userInfo } from "node:os";
import { parseArgs } from "node:util";
import { call, connectBus } from "@cairn/bus";
import {
  isCairnError,
  type MaintenanceJob,
  type MaintenanceProgress,
  type MaintenanceStatusReply,
  maintenanceJobs,
  maintenanceProgressSubject,
  maintenanceRpcs,
  type Principal,
  type RunMaintenanceReply,
  TenantIdSchema,
} from "@cairn/contracts";
import { baseEnvSchema, parseEnv } from "@cairn/service-runtime";

export const summary = "run a maintenance job now (dry run unless --apply), or show the schedules";

const usage = `usage: pnpm cairn maintenance <job> [--tenant <tenant>] [--apply] [--token <token>]
                                  [--param <name>=<value> ...] [--json]
       pnpm cairn maintenance status [--tenant <tenant>] [--json]

jobs: ${maintenanceJobs.join(", ")}

Runs the job now through the maintenance service, for one tenant (--tenant) or each tenant
it knows. Without --apply it is a dry run: nothing changes, the report says what would.

  --apply          make the changes (consolidate, archive, supersede, add synonyms, purge, re-project)
  --token <token>  gc only: purge exactly the set a dry run previewed (its token); a set that
                   changed since refuses the token and purges nothing
  --param k=v      override one of the job's parameters for this run (e.g. --param olderThanDays=60)
  --json           print the reply as JSON (one object per tenant)

Progress goes to stderr. Exit code 0 when every run is ok, 1 otherwise, 2 for bad usage.`;

/** The operator at this terminal, as an agent id. */
function operator(): string {
  const name = (() => {
    try {
      return userInfo().username;
    } catch {
      return "operator";
    }
  })();
  return `cli@${name.replace(/[^A-Za-z0-9._-]/g, "") || "operator"}`.slice(0, 128);
}

function parseValue(raw: string): unknown {
  if (raw === "true" || raw === "false") return raw === "true";
  if (raw !== "" && !Number.isNaN(Number(raw))) return Number(raw);
  if (raw.startsWith("[") || raw.startsWith("{")) {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw.includes(",") ? raw.split(",").map((s) => s.trim()) : raw;
}

export function describeRun(reply: RunMaintenanceReply): string {
  const mode = reply.mode === "apply" ? "applied" : "dry run";
  const lines = [
    `${reply.job} (${mode}) for ${reply.tenant}: ${reply.outcome}, examined ${reply.examined}, ${reply.actions.length} action(s)  [run ${reply.runId}]`,
  ];
  if (reply.error) lines.push(`  error ${reply.error.code}: ${reply.error.message}`);
  for (const a of reply.actions) {
    const target = a.resultId ? ` → ${a.resultId}` : "";
    const what = a.ids.length === 1 ? a.ids[0] : `${a.ids.length} memories`;
    const terms = Array.isArray(a.detail.terms) ? ` ${(a.detail.terms as string[]).join(" ~ ")}` : "";
    lines.push(`  ${a.status.padEnd(8)} ${a.action.padEnd(20)} ${what ?? ""}${terms}${target}`);
    if (a.reasons.length > 0) lines.push(`           ${a.reasons.join("; ")}`);
    if (a.error) lines.push(`           ${a.error}`);
  }
  if (reply.truncatedActions > 0) lines.push(`  … and ${reply.truncatedActions} more (in the run record)`);
  if (reply.token) {
    lines.push(
      `  token (valid until ${reply.tokenExpiresAt}):`,
      `    ${reply.token}`,
      `  apply exactly this set: pnpm cairn maintenance gc --tenant ${reply.tenant} --apply --token <token>`,
    );
  }
  if (!reply.recorded) lines.push("  warning: the run could not be recorded in the log");
  return lines.join("\n");
}

function describeStatus(status: MaintenanceStatusReply): string {
  const lines = [`scheduler ${status.scheduler ? "on" : "off"} (answered by ${status.instance})`];
  for (const r of status.running) lines.push(`running: ${r.job} for ${r.tenant} [run ${r.runId}]`);
  for (const t of status.tenants) {
    lines.push("", `tenant ${t.tenant}`);
    for (const j of t.jobs) {
      const schedule = j.enabled ? `every ${j.everyMinutes} min${j.apply ? "" : " (dry run)"}` : "off";
      const last = j.lastRun
        ? `last ${j.lastRun.finishedAt} ${j.lastRun.mode} ${j.lastRun.outcome}`
        : "never run";
      const next = j.nextRunAt ? `, next ${j.nextRunAt}` : "";
      lines.push(`  ${j.job.padEnd(14)} ${schedule.padEnd(24)} ${last}${next}`);
    }
  }
  return lines.join("\n");
}

export async function run(args: string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  const parse = () =>
    parseArgs({
      args,
      allowPositionals: true,
      options: {
        tenant: { type: "string" },
        apply: { type: "boolean", default: false },
        token: { type: "string" },
        param: { type: "string", multiple: true },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h", default: false },
      },
    });
  try {
    parsed = parse();
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const what = positionals[0];
  if (values.help || !what) {
    console.log(usage);
    return values.help ? 0 : 2;
  }
  if (what !== "status" && !(maintenanceJobs as readonly string[]).includes(what)) {
    console.error(`unknown job ${what}\n\n${usage}`);
    return 2;
  }
  if (values.tenant !== undefined && !TenantIdSchema.safeParse(values.tenant).success) {
    console.error(`not a tenant id: ${values.tenant}`);
    return 2;
  }
  if (values.token !== undefined && (what !== "gc" || !values.apply || values.tenant === undefined)) {
    console.error("--token is for applying a GC preview: gc --tenant <tenant> --apply --token <token>");
    return 2;
  }
  const params: Record<string, unknown> = {};
  for (const p of values.param ?? []) {
    const eq = p.indexOf("=");
    if (eq < 1) {
      console.error(`--param takes name=value, not ${p}`);
      return 2;
    }
    params[p.slice(0, eq)] = parseValue(p.slice(eq + 1));
  }

  const env = parseEnv(baseEnvSchema);
  const nc = await connectBus({
    url: env.CAIRN_NATS_URL,
    name: "cairn-cli-maintenance",
    connectTimeoutMs: 5000,
  });
  try {
    const status = await call(
      nc,
      maintenanceRpcs.status,
      values.tenant === undefined ? {} : { tenant: values.tenant },
      { timeoutMs: 15_000 },
    );
    if (what === "status") {
      console.log(values.json ? JSON.stringify(status, null, 2) : describeStatus(status));
      return 0;
    }
    const tenants = values.tenant === undefined ? status.tenants.map((t) => t.tenant) : [values.tenant];
    if (tenants.length === 0) {
      console.error("no tenant has written anything yet: nothing to maintain");
      return 0;
    }
    let failed = false;
    for (const tenant of tenants) {
      const runId = randomUUID();
      const progress = nc.subscribe(maintenanceProgressSubject(runId), {
        callback: (_err, msg) => {
          const p = msg.json<MaintenanceProgress>();
          if (p.stage === "started" || p.stage === "finished") return;
          process.stderr.write(
            `  ${p.job} ${p.tenant}: ${p.stage} ${p.done}${p.total === null ? "" : `/${p.total}`}\n`,
          );
        },
      });
      try {
        const principal: Principal = { tenant, agent: operator(), role: "admin", primary: true };
        const reply = await call(
          nc,
          maintenanceRpcs.run,
          {
            principal,
            job: what as MaintenanceJob,
            apply: values.apply,
            runId,
            ...(values.token ? { token: values.token } : {}),
            ...(Object.keys(params).length > 0 ? { params } : {}),
          },
          { timeoutMs: 60 * 60_000 },
        );
        console.log(values.json ? JSON.stringify(reply) : describeRun(reply));
        if (reply.outcome !== "ok") failed = true;
      } catch (error) {
        failed = true;
        console.error(
          `${what} for ${tenant}: ${isCairnError(error) ? `${error.code}: ${error.message}` : (error as Error).message}`,
        );
        if (isCairnError(error) && error.hint) console.error(`  ${error.hint}`);
      } finally {
        progress.unsubscribe();
      }
    }
    return failed ? 1 : 0;
  } catch (error) {
    if (isCairnError(error) && (error.code === "unavailable" || error.code === "timeout")) {
      console.error("the maintenance service does not answer: start Cairn (pnpm start) and try again");
      return 1;
    }
    throw error;
  } finally {
    await nc.close();
  }
}

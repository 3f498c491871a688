// Maintenance (admins): each job's schedule and last run, and a run now in two steps: a dry
// run that says what would change (and, for GC, gives a token bound to exactly that set), then
// the same job applied with that token. Nothing changes without the second step.
import type { MaintenanceJob, MaintenanceStatusReply, RunMaintenanceReply } from "@cairn/contracts";
import { useState } from "preact/hooks";
import { Badge, Time } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { href } from "../router.ts";
import { useAction } from "../use-action.ts";
import { useLoad } from "../use-load.ts";
import { vocabulary } from "../vocabulary.ts";

const outcomeTone = (outcome: string) => (outcome === "ok" ? "ok" : outcome === "partial" ? "warn" : "bad");

function Schedules({ status }: { status: MaintenanceStatusReply }) {
  const jobs = status.tenants.flatMap((t) => t.jobs);
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Schedule</th>
            <th scope="col">Last run</th>
            <th scope="col">Next run</th>
          </tr>
        </thead>
        <tbody>
          {jobs.map((j) => (
            <tr key={j.job}>
              <td>{j.job}</td>
              <td>{j.enabled ? `every ${j.everyMinutes} min, ${j.apply ? "applied" : "dry run"}` : "off"}</td>
              <td>
                {j.lastRun ? (
                  <>
                    <Badge tone={outcomeTone(j.lastRun.outcome)}>{j.lastRun.outcome}</Badge> {j.lastRun.mode}{" "}
                    <Time iso={j.lastRun.finishedAt} />
                  </>
                ) : (
                  <span class="muted">never</span>
                )}
              </td>
              <td>
                <Time iso={j.nextRunAt} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function RunRecord({ run }: { run: RunMaintenanceReply }) {
  return (
    <section class="run-record" aria-labelledby="run-title">
      <h3 id="run-title">
        {run.mode === "dry_run" ? "Dry run" : "Applied"}: {run.job}{" "}
        <Badge tone={outcomeTone(run.outcome)}>{run.outcome}</Badge>
      </h3>
      <p>
        Looked at {run.examined}; {run.actions.length + run.truncatedActions}{" "}
        {run.mode === "dry_run" ? "changes it would make" : "changes"}.{" "}
        <a href={href(["events"], { stream: `maintenance-${run.runId}` })}>Its record in the log</a>
      </p>
      {run.error ? (
        <p class="problem-detail">
          {run.error.code}: {run.error.message}
        </p>
      ) : null}
      {run.actions.length ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Action</th>
                <th scope="col">Memories</th>
                <th scope="col">Why</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {run.actions.map((a, i) => (
                <tr key={i}>
                  <td>{a.action}</td>
                  <td>
                    {a.ids.map((id) => (
                      <a key={id} class="id-link" href={href(["memories", id])}>
                        {id.slice(0, 8)}
                      </a>
                    ))}
                  </td>
                  <td>{a.reasons.join("; ")}</td>
                  <td>
                    {a.status}
                    {a.error ? ` (${a.error})` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}

/** The parameters field: empty for the tenant's own, else a JSON object. */
function paramsOf(text: string): Record<string, unknown> | undefined {
  if (text.trim() === "") return undefined;
  const value: unknown = JSON.parse(text);
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new Error('the parameters are a JSON object, e.g. {"olderThanDays": 7}');
  }
  return value as Record<string, unknown>;
}

export function MaintenancePage() {
  const { api, announce } = useConsole();
  const { result, reload } = useLoad(() => api.get<MaintenanceStatusReply>("/v1/maintenance"), []);
  const [job, setJob] = useState<MaintenanceJob>(vocabulary.maintenanceJobs[0]);
  const [paramsText, setParamsText] = useState("");
  // The dry run, and the parameters it ran with: applying runs the same job with the same ones.
  const [preview, setPreview] = useState<{ run: RunMaintenanceReply; params: string } | null>(null);
  const [applied, setApplied] = useState<RunMaintenanceReply | null>(null);
  const action = useAction();
  const previewed = preview !== null && preview.run.job === job && preview.params === paramsText;
  const run = (apply: boolean) =>
    action.run(async () => {
      const params = paramsOf(paramsText);
      const token = apply ? preview?.run.token : null;
      const body = { job, apply, ...(params ? { params } : {}), ...(token ? { token } : {}) };
      const { data } = await api.request<RunMaintenanceReply>("POST", "/v1/maintenance/runs", { body });
      if (apply) {
        setApplied(data);
        setPreview(null);
        announce(`${job} applied: ${data.outcome}.`);
        reload();
      } else {
        setPreview({ run: data, params: paramsText });
        setApplied(null);
        announce(`${job} dry run: ${data.actions.length} changes it would make.`);
      }
    });
  return (
    <Page title="Maintenance">
      <h2>Run a job now</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          run(false);
        }}
      >
        <label class="field">
          <span>Job</span>
          <select value={job} onChange={(e) => setJob(e.currentTarget.value as MaintenanceJob)}>
            {vocabulary.maintenanceJobs.map((j) => (
              <option key={j} value={j}>
                {j}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Parameters (JSON, optional: the tenant's settings otherwise)</span>
          <input
            class="secret"
            placeholder='{"olderThanDays": 7}'
            value={paramsText}
            onInput={(e) => setParamsText(e.currentTarget.value)}
          />
        </label>
        <div class="actions">
          <button type="submit" class="secondary" disabled={action.busy}>
            Preview (dry run)
          </button>
          <button type="button" class="danger" disabled={action.busy || !previewed} onClick={() => run(true)}>
            Apply{previewed && preview.run.token ? " with the token" : ""}
          </button>
        </div>
        <p class="muted">
          Apply is offered after a preview of the same job and parameters
          {previewed && preview.run.tokenExpiresAt ? (
            <>
              ; the token expires <Time iso={preview.run.tokenExpiresAt} />
            </>
          ) : null}
          .
        </p>
      </form>
      {action.problem ? <ProblemMessage problem={action.problem} /> : null}
      {preview ? <RunRecord run={preview.run} /> : null}
      {applied ? <RunRecord run={applied} /> : null}
      <h2>Schedules</h2>
      {result.state === "loading" ? <LoadingRows rows={1} kind="block" /> : null}
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "ok" ? <Schedules status={result.data} /> : null}
    </Page>
  );
}

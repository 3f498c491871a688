// Status (any key): who the key is, whether the services answer, open work and the doctor's
// verdict; and for admins the doctor's full report: projections, consumers, dead letters,
// drift, each finding with its fix.
import type { DoctorReport, Principal } from "@cairn/contracts";
import { type Problem, problemOf } from "../api-client.ts";
import { Badge, Facts, num, Time } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { isAdmin, useConsole } from "../console-context.ts";
import { href } from "../router.ts";
import { useLoad } from "../use-load.ts";

type Finding = { code: string; severity: string; count: number; fix: string; message?: string };
type StatusReply = {
  principal: Principal;
  services: Record<string, { ok: boolean }>;
  ranking: string;
  pending: { proposals: number | null; handoffs: number | null };
  lastWritePosition: number | null;
  settings: {
    version: number;
    changedAt: string | null;
    changedBy: string | null;
    set: string[];
    workflowLock: { reason: string; expiresAt: string } | null;
  } | null;
  health: { status: string; summary: string; findings: Finding[] } | null;
};

/** The tenant's settings in brief: their version, the last change, what is set (admins: a link to them). */
function SettingsSummary({ settings, admin }: { settings: StatusReply["settings"]; admin: boolean }) {
  if (!settings) return <span class="muted">not readable here</span>;
  const version = admin ? (
    <a href={href(["settings"])}>version {settings.version}</a>
  ) : (
    `version ${settings.version}`
  );
  return (
    <span>
      {version}
      {settings.changedAt ? (
        <>
          , changed <Time iso={settings.changedAt} /> by {settings.changedBy}
        </>
      ) : (
        ", never changed"
      )}
      {settings.set.length > 0 ? `; set: ${settings.set.join(", ")}` : "; all defaults"}
    </span>
  );
}

const tone = (status: string) => (status === "ok" ? "ok" : status === "warn" ? "warn" : "bad");

function Findings({ findings }: { findings: Finding[] }) {
  if (findings.length === 0) return <p class="muted">No findings.</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Finding</th>
            <th scope="col">Severity</th>
            <th scope="col">Count</th>
            <th scope="col">Fix</th>
          </tr>
        </thead>
        <tbody>
          {findings.map((f) => (
            <tr key={f.code}>
              <td>
                <code>{f.code}</code>
                {f.message ? <div class="muted">{f.message}</div> : null}
              </td>
              <td>
                <Badge tone={tone(f.severity === "info" ? "ok" : f.severity)}>{f.severity}</Badge>
              </td>
              <td>{f.count}</td>
              <td>{f.fix}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Doctor({ report }: { report: DoctorReport }) {
  return (
    <section aria-labelledby="doctor-title">
      <h2 id="doctor-title">
        Doctor <Badge tone={tone(report.status)}>{report.status}</Badge>
      </h2>
      <p>{report.summary}</p>
      <Facts
        rows={[
          ["Generated", <Time key="g" iso={report.generatedAt} />],
          ["Mode", report.mode],
          ["Log position", report.log.position],
          ["Relay", `checkpoint ${report.relay.checkpoint}, ${report.relay.backlog} behind`],
        ]}
      />
      <h3>Findings</h3>
      <Findings findings={report.findings} />
      <h3>Read models</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Projection</th>
              <th scope="col">Service</th>
              <th scope="col">Generation</th>
              <th scope="col">Position</th>
              <th scope="col">Lag</th>
              <th scope="col">Dead letters</th>
            </tr>
          </thead>
          <tbody>
            {report.projections.map((p) => (
              <tr key={`${p.service}/${p.name}`}>
                <td>{p.name}</td>
                <td>{p.service}</td>
                <td>
                  {p.generation}
                  {p.rebuilding ? ` (rebuilding ${p.rebuilding.generation})` : ""}
                </td>
                <td>{p.position}</td>
                <td>{p.lag}</td>
                <td>{p.deadLetters}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Consumers</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Consumer</th>
              <th scope="col">Pending</th>
              <th scope="col">Waiting for ack</th>
              <th scope="col">Redelivered</th>
            </tr>
          </thead>
          <tbody>
            {report.consumers.map((c) => (
              <tr key={c.name}>
                <td>{c.name}</td>
                <td>{c.pending}</td>
                <td>{c.ackPending}</td>
                <td>{c.redelivered}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <h3>Read models against the log</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Read model</th>
              <th scope="col">As of</th>
              <th scope="col">Checked</th>
              <th scope="col">Missing</th>
              <th scope="col">Stale</th>
              <th scope="col">Unexplained</th>
              <th scope="col">Not purged</th>
            </tr>
          </thead>
          <tbody>
            {report.drift.map((d) => (
              <tr key={d.readModel}>
                <td>{d.readModel}</td>
                <td>{d.position}</td>
                <td>{d.checked}</td>
                <td>{d.missing}</td>
                <td>{d.stale}</td>
                <td>{d.unexplained}</td>
                <td>{d.notPurged}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Facts
        rows={[
          [
            "Dead letters",
            report.deadLetters.length
              ? report.deadLetters.map((d) => `${d.projection}: ${d.count}`).join(", ")
              : "none",
          ],
          ["Verification due", report.verification.due],
          [
            "Inbox",
            `${report.inbox.pendingProposals} proposals (oldest ${num(report.inbox.oldestProposalAgeHours, 1)} h), ` +
              `${report.inbox.openHandoffs} handoffs (oldest ${num(report.inbox.oldestHandoffAgeHours, 1)} h)`,
          ],
        ]}
      />
    </section>
  );
}

export function StatusPage() {
  const { api, principal } = useConsole();
  const admin = isAdmin(principal);
  // One load for the page, so the status does not move when the (slower) doctor answers.
  const { result, reload } = useLoad(async () => {
    const [status, doctor] = await Promise.all([
      api.get<StatusReply>("/v1/status"),
      admin
        ? api.get<DoctorReport>("/v1/maintenance/doctor").catch((error: unknown): Problem => problemOf(error))
        : Promise.resolve(null),
    ]);
    return { status, doctor };
  }, [admin]);
  return (
    <Page title="Status">
      {result.state === "loading" ? <LoadingRows rows={1} kind="block" /> : null}
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "ok" ? (
        <>
          <section aria-labelledby="status-title">
            <h2 id="status-title">
              This key and the services{" "}
              {result.data.status.health ? (
                <Badge tone={tone(result.data.status.health.status)}>
                  {result.data.status.health.status}
                </Badge>
              ) : null}
            </h2>
            <Facts
              rows={[
                ["Tenant", result.data.status.principal.tenant],
                ["Agent", result.data.status.principal.agent],
                ["Role", result.data.status.principal.role],
                ["Primary", result.data.status.principal.primary ? "yes: sees every agent's memories" : "no"],
                [
                  "Services",
                  <span key="s" class="badges">
                    {Object.entries(result.data.status.services).map(([name, s]) => (
                      <Badge key={name} tone={s.ok ? "ok" : "bad"}>
                        {name} {s.ok ? "up" : "down"}
                      </Badge>
                    ))}
                  </span>,
                ],
                ["Ranking", result.data.status.ranking],
                [
                  "Open proposals",
                  <a key="p" href={href(["inbox"])}>
                    {result.data.status.pending.proposals ?? "—"}
                  </a>,
                ],
                [
                  "Open handoffs",
                  <a key="h" href={href(["handoffs"])}>
                    {result.data.status.pending.handoffs ?? "—"}
                  </a>,
                ],
                ["Last write of this key", result.data.status.lastWritePosition ?? "—"],
                [
                  "Settings",
                  <SettingsSummary key="s" settings={result.data.status.settings} admin={admin} />,
                ],
                [
                  "Workflow lock",
                  result.data.status.settings?.workflowLock ? (
                    <span key="l">
                      <Badge tone="warn">locked</Badge> {result.data.status.settings.workflowLock.reason},
                      until <Time iso={result.data.status.settings.workflowLock.expiresAt} />
                    </span>
                  ) : (
                    "none"
                  ),
                ],
                ["Health", result.data.status.health?.summary ?? "maintenance does not answer"],
              ]}
            />
            {!admin && result.data.status.health ? (
              <Findings findings={result.data.status.health.findings} />
            ) : null}
          </section>
          {result.data.doctor === null ? null : "code" in result.data.doctor ? (
            <ProblemMessage problem={result.data.doctor} onRetry={reload} />
          ) : (
            <Doctor report={result.data.doctor} />
          )}
        </>
      ) : null}
    </Page>
  );
}

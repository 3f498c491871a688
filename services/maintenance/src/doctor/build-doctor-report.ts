// The doctor: a health report of the whole deployment (or one tenant) that a person or an
// agent can act on, made of one check per concern (relay, projections, consumers, drift of the
// read models, verification, inbox). It names memories by id only: no content, title or label
// of a memory is ever in the report.
import type { DoctorReport, DoctorRequestSchema, DriftReport } from "@cairn/contracts";
import type { z } from "zod";
import { checkConsumers } from "./check-consumers.ts";
import { checkDrift } from "./check-drift.ts";
import { checkInbox } from "./check-inbox.ts";
import { checkProjections } from "./check-projections.ts";
import { checkRelay } from "./check-relay.ts";
import { checkVerification } from "./check-verification.ts";
import { type DoctorDeps, type Findings, snapshotsOf } from "./doctor-check.ts";

export type { DoctorDeps } from "./doctor-check.ts";

const severityRank = { info: 0, warn: 1, error: 2 } as const;

export async function buildDoctorReport(
  deps: DoctorDeps,
  request: z.infer<typeof DoctorRequestSchema>,
): Promise<DoctorReport> {
  const now = deps.now();
  const findings: Findings = [];
  await deps.view.catchUp();
  const { log, relay } = await checkRelay(deps, findings);
  const { projections, deadLetters } = await checkProjections(deps, findings);
  const consumers = await checkConsumers(deps, findings);
  const drift: DriftReport[] = request.summaryOnly
    ? []
    : await checkDrift(deps, findings, {
        tenant: request.tenant,
        full: request.full,
        sampleSize: request.sampleSize,
      });
  const snapshots = await snapshotsOf(deps.view, request.tenant);
  const verification = checkVerification(snapshots, now, findings);
  const inbox = checkInbox(snapshots, now, findings);

  const worst = findings.reduce<"info" | "warn" | "error">(
    (w, f) => (severityRank[f.severity] > severityRank[w] ? f.severity : w),
    "info",
  );
  const status = worst === "info" ? "ok" : worst;
  const serious = findings.filter((f) => f.severity !== "info");
  const summary =
    serious.length === 0
      ? `ok: log at ${log.position}, ${drift.length > 0 ? "read models match the log" : "services answer"}${verification.due > 0 ? `; ${verification.due} memory(ies) due for verification` : ""}`
      : `${status}: ${serious.map((f) => f.message).join("; ")}`;

  return {
    generatedAt: now.toISOString(),
    tenant: request.tenant ?? null,
    mode: request.summaryOnly ? "summary" : request.full ? "full" : "sample",
    status,
    summary,
    findings,
    log,
    relay,
    projections,
    consumers,
    deadLetters,
    drift,
    verification,
    inbox,
  };
}

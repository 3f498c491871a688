// The doctor's report as Markdown, for a person at a terminal (`pnpm cairn doctor --format markdown`).
import type { DoctorReport } from "@cairn/contracts";

const mark = { info: "ℹ", warn: "⚠", error: "✖" } as const;

export function doctorReportMarkdown(report: DoctorReport): string {
  const lines: string[] = [];
  lines.push(`# Cairn doctor: ${report.status}`, "");
  lines.push(report.summary, "");
  lines.push(
    `Generated ${report.generatedAt} · ${report.tenant ? `tenant ${report.tenant}` : "all tenants"} · ${report.mode}`,
    "",
  );
  lines.push("## Findings", "");
  if (report.findings.length === 0) lines.push("Nothing to report.");
  for (const f of report.findings)
    lines.push(`- ${mark[f.severity]} **${f.code}** ${f.message} (fix: ${f.fix})`);
  lines.push("", "## Log, relay and projections", "");
  lines.push("| what | position | behind | applied by |", "|---|---:|---:|---|");
  lines.push(`| log | ${report.log.position} | | |`);
  lines.push(`| relay | ${report.relay.checkpoint} | ${report.relay.backlog} | |`);
  for (const p of report.projections) {
    const by = p.appliedBy === undefined ? "" : (p.appliedBy ?? "no copy");
    lines.push(`| ${p.name} | ${p.position} | ${p.lag} | ${by} |`);
  }
  if (report.consumers.length > 0) {
    lines.push("", "| consumer | pending | ack pending | redelivered |", "|---|---:|---:|---:|");
    for (const c of report.consumers)
      lines.push(`| ${c.name} | ${c.pending} | ${c.ackPending} | ${c.redelivered} |`);
  }
  if (report.deadLetters.length > 0) {
    lines.push("", "| dead letters | count | last |", "|---|---:|---|");
    for (const d of report.deadLetters) lines.push(`| ${d.projection} | ${d.count} | ${d.lastAt ?? ""} |`);
  }
  if (report.drift.length > 0) {
    lines.push("", "## Read models against the log", "");
    lines.push(
      "| read model | as of | checked | missing | stale | unexplained | not purged |",
      "|---|---:|---:|---:|---:|---:|---:|",
    );
    for (const d of report.drift) {
      lines.push(
        `| ${d.readModel} | ${d.position} | ${d.checked} | ${d.missing} | ${d.stale} | ${d.unexplained} | ${d.notPurged} |`,
      );
    }
    for (const d of report.drift) {
      for (const [kind, ids] of Object.entries(d.ids)) {
        if (ids.length > 0) lines.push("", `${d.readModel} ${kind}: ${ids.join(", ")}`);
      }
    }
  }
  lines.push("", "## Open work", "");
  lines.push(
    `- ${report.verification.due} memory(ies) due for verification${
      Object.keys(report.verification.byKind).length > 0
        ? ` (${Object.entries(report.verification.byKind)
            .map(([k, n]) => `${k} ${n}`)
            .join(", ")})`
        : ""
    }`,
  );
  lines.push(
    `- ${report.inbox.pendingProposals} proposal(s) pending${
      report.inbox.oldestProposalAgeHours === null ? "" : `, oldest ${report.inbox.oldestProposalAgeHours} h`
    }`,
  );
  lines.push(
    `- ${report.inbox.openHandoffs} handoff(s) open${
      report.inbox.oldestHandoffAgeHours === null ? "" : `, oldest ${report.inbox.oldestHandoffAgeHours} h`
    }`,
  );
  return `${lines.join("\n")}\n`;
}

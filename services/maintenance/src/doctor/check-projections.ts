// Every read model of every service, as the service that runs it reports it (the projection
// runtime's status): generation, checkpoint, lag and dead letters. A dead letter is fixed by
// `repair`, which retries it.
import { call } from "@cairn/bus";
import { type DoctorReport, projectionRpcs } from "@cairn/contracts";
import { type DoctorDeps, type Findings, unavailable } from "./doctor-check.ts";

const services = ["search", "ranking", "maintenance"] as const;

export async function checkProjections(
  deps: Pick<DoctorDeps, "nc" | "timeoutMs">,
  findings: Findings,
): Promise<Pick<DoctorReport, "projections" | "deadLetters">> {
  const projections: DoctorReport["projections"] = [];
  const deadLetters: DoctorReport["deadLetters"] = [];
  for (const service of services) {
    try {
      const reply = await call(deps.nc, projectionRpcs(service).status, {}, { timeoutMs: deps.timeoutMs });
      for (const p of reply.projections) {
        projections.push({
          name: p.name,
          service,
          generation: p.generation,
          position: p.position,
          lag: p.lag,
          deadLetters: p.deadLetters,
          rebuilding: p.rebuilding,
          ...(p.appliedBy === undefined ? {} : { appliedBy: p.appliedBy }),
        });
        if (p.deadLetters > 0)
          deadLetters.push({ projection: p.name, count: p.deadLetters, lastAt: p.lastDeadLetterAt });
      }
    } catch (error) {
      unavailable(findings, service, error);
    }
  }
  for (const p of projections) {
    if (p.lag > 100) {
      findings.push({
        code: "projection_lag",
        severity: "warn",
        message: `${p.name} is ${p.lag} positions behind the log`,
        count: p.lag,
        fix: "none",
      });
    }
  }
  const letters = deadLetters.reduce((n, l) => n + l.count, 0);
  if (letters > 0) {
    findings.push({
      code: "dead_letters",
      severity: "warn",
      message: `${letters} event(s) could not be projected and were set aside (${deadLetters.map((l) => `${l.projection}: ${l.count}`).join(", ")}); repair retries them`,
      count: letters,
      fix: "repair",
    });
  }
  return { projections, deadLetters };
}

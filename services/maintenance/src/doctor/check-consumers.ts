// The projections' durable JetStream consumers: how many events wait for each.
import { type DoctorReport, eventStreamName } from "@cairn/contracts";
import type { NatsConnection } from "@nats-io/nats-core";
import { type DoctorDeps, type Findings, unavailable } from "./doctor-check.ts";

type ConsumerInfo = {
  name: string;
  num_pending?: number;
  num_ack_pending?: number;
  num_redelivered?: number;
};

/** Durable consumers of the event stream, through the JetStream API. */
async function jetStreamConsumers(nc: NatsConnection, timeoutMs: number): Promise<DoctorReport["consumers"]> {
  const out: DoctorReport["consumers"] = [];
  let offset = 0;
  for (;;) {
    const msg = await nc.request(`$JS.API.CONSUMER.LIST.${eventStreamName}`, JSON.stringify({ offset }), {
      timeout: timeoutMs,
    });
    const reply = msg.json<{
      consumers?: ConsumerInfo[];
      total?: number;
      error?: { description?: string };
    }>();
    if (reply.error) throw new Error(reply.error.description ?? "JetStream refused the consumer list");
    const page = reply.consumers ?? [];
    for (const c of page) {
      out.push({
        name: c.name,
        pending: c.num_pending ?? 0,
        ackPending: c.num_ack_pending ?? 0,
        redelivered: c.num_redelivered ?? 0,
      });
    }
    offset += page.length;
    if (page.length === 0 || offset >= (reply.total ?? 0))
      return out.sort((a, b) => a.name.localeCompare(b.name));
  }
}

export async function checkConsumers(deps: Pick<DoctorDeps, "nc" | "timeoutMs">, findings: Findings) {
  try {
    const consumers = await jetStreamConsumers(deps.nc, deps.timeoutMs);
    const behind = consumers.filter((c) => c.pending > 1000);
    if (behind.length > 0) {
      findings.push({
        code: "consumer_backlog",
        severity: "warn",
        message: `${behind.length} consumer(s) have more than 1000 events pending: ${behind.map((c) => c.name).join(", ")}`,
        count: behind.length,
        fix: "none",
      });
    }
    return consumers;
  } catch (error) {
    unavailable(findings, "JetStream", error);
    return [];
  }
}

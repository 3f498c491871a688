// The memories benches seed: deterministic text on 40 topics over 10 tenants and 6 agents,
// written straight into the log as ingest would record them (first events of new streams).
import { randomUUID } from "node:crypto";
import { type EventMeta, type MemoryBody, type NewEvent, streamIdFor } from "@cairn/contracts";
import type { AppendInput } from "@cairn/event-store";
import type pg from "pg";

/** Deterministic pseudo-random numbers (mulberry32), so every run benches the same data. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const topics = [
  ["deploy", "release", "rollback", "canary", "pipeline"],
  ["database", "migration", "postgres", "index", "vacuum"],
  ["cache", "redis", "eviction", "ttl", "latency"],
  ["kubernetes", "pod", "helm", "cluster", "node"],
  ["billing", "invoice", "stripe", "refund", "tax"],
  ["search", "ranking", "embedding", "bm25", "recall"],
  ["auth", "token", "oauth", "session", "password"],
  ["frontend", "react", "css", "bundle", "component"],
  ["testing", "vitest", "fixture", "flaky", "coverage"],
  ["observability", "trace", "metric", "grafana", "alert"],
  ["queue", "nats", "consumer", "backpressure", "ack"],
  ["security", "secret", "rotation", "audit", "scan"],
  ["api", "rest", "openapi", "pagination", "rate"],
  ["mobile", "ios", "android", "push", "offline"],
  ["data", "warehouse", "etl", "parquet", "schema"],
  ["email", "smtp", "template", "bounce", "newsletter"],
  ["payments", "card", "checkout", "fraud", "chargeback"],
  ["storage", "s3", "bucket", "lifecycle", "backup"],
  ["network", "dns", "tls", "proxy", "firewall"],
  ["docs", "readme", "guide", "tutorial", "changelog"],
  ["hiring", "interview", "onboarding", "mentor", "review"],
  ["design", "figma", "palette", "typography", "layout"],
  ["support", "ticket", "escalation", "sla", "customer"],
  ["compliance", "gdpr", "retention", "erasure", "consent"],
  ["performance", "profiling", "cpu", "memory", "throughput"],
  ["ml", "model", "training", "dataset", "inference"],
  ["pricing", "plan", "discount", "trial", "upgrade"],
  ["analytics", "funnel", "cohort", "dashboard", "event"],
  ["localization", "translation", "locale", "unicode", "timezone"],
  ["accessibility", "screenreader", "contrast", "keyboard", "aria"],
  ["incident", "postmortem", "pager", "outage", "oncall"],
  ["budget", "cost", "forecast", "spend", "savings"],
  ["legal", "contract", "license", "vendor", "nda"],
  ["roadmap", "milestone", "quarter", "priority", "scope"],
  ["chat", "slack", "channel", "thread", "notification"],
  ["editor", "vim", "vscode", "plugin", "keybinding"],
  ["python", "pip", "venv", "typing", "asyncio"],
  ["rust", "cargo", "borrow", "crate", "unsafe"],
  ["typescript", "tsc", "generics", "zod", "eslint"],
  ["golang", "goroutine", "channel", "module", "interface"],
] as const;
const filler =
  "the team agreed to keep it simple and to write down why we chose this approach for later".split(" ");
const kinds = ["preference", "decision", "constraint", "fix", "workflow", "fact", "episode", "note"] as const;
export const tenants = Array.from({ length: 10 }, (_, i) => `bench${i}`);
export const agents = Array.from({ length: 6 }, (_, i) => `agent${i}`);

export function pick<T>(rand: () => number, items: readonly T[]): T {
  return items[Math.floor(rand() * items.length)] as T;
}

function sentence(rand: () => number, topic: readonly string[]): string {
  const words: string[] = [];
  for (let i = 0; i < 12; i += 1) words.push(rand() < 0.45 ? pick(rand, topic) : pick(rand, filler));
  words.push(`v${Math.floor(rand() * 100)}`);
  return `${words.join(" ")}.`;
}

export function memory(rand: () => number, n: number) {
  const topic = pick(rand, topics);
  const content = Array.from({ length: 2 + Math.floor(rand() * 3) }, () => sentence(rand, topic)).join(" ");
  const roll = rand();
  const tier = roll < 0.9 ? "memory" : roll < 0.95 ? "proposal" : "handoff";
  const scopeRoll = rand();
  const scope = scopeRoll < 0.75 ? "team" : scopeRoll < 0.98 ? "agent" : "global";
  const body: MemoryBody = {
    slot: `${topic[0]}-${n}`,
    kind: pick(rand, kinds),
    content,
    title: `${topic[0]} ${topic[1]} note ${n}`,
    tags: [topic[0] as string, ...(rand() < 0.3 ? [pick(rand, topic) as string] : [])],
    aliases: [],
    keys: [topic[1] as string],
    entities: [],
    links: [],
    sentiment: 0,
    contentHash: `bench:${n}`,
    project: rand() < 0.5 ? "cairn" : null,
    source: null,
    validFrom: null,
  };
  return { tier, scope, body, tenant: pick(rand, tenants), agent: pick(rand, agents) } as const;
}

export function appendInput(m: ReturnType<typeof memory>): AppendInput {
  const id = randomUUID();
  const type =
    m.tier === "memory" ? "memory.recorded" : m.tier === "proposal" ? "proposal.submitted" : "handoff.opened";
  const meta: EventMeta = {
    tenant: m.tenant,
    actor: m.agent,
    correlationId: randomUUID(),
    causationId: null,
    traceContext: {},
    recordedAt: new Date().toISOString(),
  };
  const event = {
    eventId: randomUUID(),
    type,
    data: {
      ...m.body,
      id,
      tier: m.tier,
      scope: m.scope,
      agent: m.agent,
      supersedes: null,
      promotedFrom: null,
    },
  } as NewEvent;
  return {
    streamId: streamIdFor("memory", id),
    streamType: "memory",
    expectedVersion: "no_stream",
    events: [event],
    meta,
  };
}

export function queryText(rand: () => number): string {
  const topic = pick(rand, topics);
  const words: string[] = [pick(rand, topic), pick(rand, topic)];
  if (rand() < 0.3) words.push(pick(rand, filler));
  return words.join(" ");
}

/** Inserts first events of new streams straight into the log (a bench seed, as the superuser). */
export async function seedLog(pool: pg.Pool, inputs: AppendInput[]): Promise<void> {
  const events = inputs.map((input) => ({ input, event: input.events[0] as NewEvent }));
  await pool.query(
    `insert into cairn_events (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
     select * from unnest($1::uuid[], $2::text[], $3::text[], $4::int[], $5::text[], $6::int[], $7::jsonb[], $8::jsonb[])`,
    [
      events.map((e) => e.event.eventId),
      events.map((e) => e.input.streamId),
      events.map((e) => e.input.streamType),
      events.map(() => 1),
      events.map((e) => e.event.type),
      events.map(() => 1),
      events.map((e) => JSON.stringify(e.event.data)),
      events.map((e) => JSON.stringify(e.input.meta)),
    ],
  );
}

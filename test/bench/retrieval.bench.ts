// `pnpm bench retrieval [--data DIR] [--mode lexical|vector|hybrid|full|all] [--json]
//                       [--nats URL] [--candidates N] [--questions N] [--concurrency 8] [--factors off]
//                       [--expansions off] [--intent off|WEIGHT] [--floor SHARE]
//                       [--dump FILE]`
//
// Stores every turn of LoCoMo-format conversations as one memory through the real write
// path (the ingest RPC), then asks every question of categories 1-4 through the real read
// path, and prints evidence recall@5/@10/@20, hit@10, MRR, recall@10 per question category
// and query latency per mode, next to a plain BM25 computed in-process on the same turns.
// A turn whose content is already stored (conversations repeat "Bye!" word for word) is
// counted as the memory that holds it: one memory may stand for several turns.
//
//   lexical | vector | hybrid   `search.candidates` in that mode, in candidate order, without
//                                episode spreading (the retrievers alone)
//   full                         `ranking.expand` → `search.candidates` (hybrid, with the
//                                expansion terms and episodes) → `ranking.rerank`, as the
//                                gateway does
//
// Each turn is stored with its session as its episode and its turn number as its order, as
// an agent writing down a conversation would.
//
// Without --nats it starts its own Postgres, Redis and NATS (@cairn/testing) and the
// ingest, search and ranking services as processes; with --nats it uses a running
// deployment. Each conversation is written into a tenant of its own.
import { randomUUID } from "node:crypto";
import { existsSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { call, connectBus } from "@cairn/bus";
import {
  type CandidateScores,
  commandRpc,
  defaultRankingWeights,
  defaultRetrievalSettings,
  healthRpc,
  isCairnError,
  type Principal,
  rankingRpcs,
  searchRpcs,
} from "@cairn/contracts";
import { migrateToLatest } from "@cairn/event-store";
import { defaultRerankCandidates } from "@cairn/gateway";
import { startNats, startPostgres, startRedis } from "@cairn/testing/servers";
import type { NatsConnection } from "@nats-io/nats-core";
// Not from the package index: that also loads the vitest fixtures, which need a test run.
import { repoRoot, type ServiceProcess, spawnService } from "../helpers/service-processes.ts";
import { BenchOptionError, checkArgs, optional, wholeNumber } from "./lib/bench-args.ts";
import { Bm25Index } from "./lib/bm25-baseline.ts";
import { type LocomoConversation, loadLocomo } from "./lib/locomo.ts";
import { percentile, progress, type Row, report } from "./lib/report.ts";
import {
  categoryNames,
  figuresPerCategory,
  type QuestionOutcome,
  type RetrievalFigures,
  retrievalFigures,
} from "./lib/retrieval-metrics.ts";

const modes = ["lexical", "vector", "hybrid", "full"] as const;
type Mode = (typeof modes)[number];

type Options = {
  data: string;
  modes: Mode[];
  natsUrl: string | undefined;
  candidateK: number;
  maxQuestions: number | undefined;
  concurrency: number;
  /** Writes every question's full-mode candidates and final order to this JSON file (diagnosis). */
  dump: string | undefined;
  /** `off`: every ranking weight set to 1 for the bench tenants, so `full` shows relevance alone. */
  factorsOff: boolean;
  /** `off`: `full` without ranking's expansion terms (key graph and co-occurrence), to measure them. */
  expansionsOff: boolean;
  /** The bench tenants' intent weight (`off` = 1: no query understanding); undefined: the default. */
  intentWeight: number | undefined;
  /** The tenants' relevance floor (`retrieval.relevanceFloor`); undefined: the default. */
  floor: number | undefined;
};

function parseOptions(args: string[]): Options {
  const mode = optional(args, "mode") ?? "all";
  if (mode !== "all" && !(modes as readonly string[]).includes(mode)) {
    throw new BenchOptionError(`--mode is one of ${modes.join(", ")} or all`);
  }
  const questions = optional(args, "questions");
  return {
    data: dataFolder(optional(args, "data") ?? resolve(repoRoot, "../shared/bench/locomo-dev")),
    modes: mode === "all" ? [...modes] : [mode as Mode],
    natsUrl: optional(args, "nats"),
    candidateK: wholeNumber(args, "candidates", defaultRerankCandidates),
    maxQuestions: questions === undefined ? undefined : wholeNumber(args, "questions", 1),
    concurrency: wholeNumber(args, "concurrency", 8),
    dump: optional(args, "dump"),
    factorsOff: optional(args, "factors") === "off",
    expansionsOff: optional(args, "expansions") === "off",
    intentWeight: intentOption(optional(args, "intent")),
    floor: floorOption(optional(args, "floor")),
  };
}

/** The folder or file of LoCoMo-format data, refused by name when it is not there. */
function dataFolder(path: string): string {
  const full = resolve(path);
  if (!existsSync(full)) throw new BenchOptionError(`--data: ${full} does not exist`);
  return full;
}

function floorOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const floor = Number(value);
  if (!(floor >= 0 && floor <= 1))
    throw new BenchOptionError("--floor is a share of the query between 0 and 1");
  return floor;
}

function intentOption(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const weight = value === "off" ? 1 : Number(value);
  if (!Number.isFinite(weight) || weight < 1)
    throw new BenchOptionError("--intent is off or a weight of at least 1");
  return weight;
}

const log = (line: string) => process.stderr.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

type Deployment = { nc: NatsConnection; stop: () => Promise<void> };

async function waitForHealthy(nc: NatsConnection, services: ("ingest" | "search" | "ranking")[]) {
  const deadline = Date.now() + 90_000;
  for (const service of services) {
    for (;;) {
      try {
        const health = await call(nc, healthRpc(service), {}, { timeoutMs: 2000 });
        if (health.ok) break;
      } catch {
        // not up yet
      }
      if (Date.now() > deadline) throw new Error(`${service} did not become healthy in 90 s`);
      await sleep(250);
    }
  }
}

/** Postgres, Redis and NATS of our own, migrations, and ingest + search + ranking as processes. */
async function startDeployment(): Promise<Deployment> {
  log("starting Postgres, Redis and NATS ...");
  const [postgres, redis, nats] = await Promise.all([startPostgres(), startRedis(), startNats()]);
  const databaseUrl = await postgres.createDatabase("cairn_bench");
  await migrateToLatest(databaseUrl);
  const env = {
    CAIRN_DATABASE_URL: databaseUrl,
    CAIRN_REDIS_URL: redis.url,
    CAIRN_NATS_URL: nats.url,
    CAIRN_LOG_LEVEL: "warn",
    CAIRN_METRICS_PORT: "off",
  };
  log("starting ingest, search and ranking ...");
  const processes: ServiceProcess[] = (["ingest", "search", "ranking"] as const).map((name) =>
    spawnService(name, env),
  );
  const nc = await connectBus({ url: nats.url, name: "bench-retrieval" });
  try {
    await waitForHealthy(nc, ["ingest", "search", "ranking"]);
  } catch (error) {
    for (const p of processes) log(`--- ${p.name}\n${p.logs.slice(-20).join("\n")}`);
    throw error;
  }
  return {
    nc,
    stop: async () => {
      await nc.close();
      await Promise.all(processes.map((p) => p.stop()));
      await Promise.all([postgres.stop(), redis.stop(), nats.stop()]);
    },
  };
}

async function connectDeployment(url: string): Promise<Deployment> {
  const nc = await connectBus({ url, name: "bench-retrieval" });
  await waitForHealthy(nc, ["ingest", "search", "ranking"]);
  return { nc, stop: () => nc.close() };
}

async function pooled<T>(items: T[], concurrency: number, fn: (item: T, index: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, items.length) }, async () => {
      while (next < items.length) {
        const index = next;
        next += 1;
        await fn(items[index] as T, index);
      }
    }),
  );
}

/** `D3:14` → session 3 of the conversation, turn 14. */
function episodeOf(conversation: string, diaId: string): { id: string; order: number } {
  const [session, turn] = diaId.slice(1).split(":");
  return { id: `${conversation}-session-${session}`, order: Number(turn) };
}

type Stored = {
  conversation: LocomoConversation;
  principal: Principal;
  /** Memory id → the turns it holds (one, or several that say the same). */
  turnsOf: Map<string, string[]>;
  position: number;
  repeated: number;
};

/** Every turn as one memory, through ingest; returns the memory id → turn id map. */
async function storeConversation(
  nc: NatsConnection,
  conversation: LocomoConversation,
  runId: string,
  options: Options,
): Promise<Stored> {
  const concurrency = options.concurrency;
  const tenant = `bench-${runId}-${conversation.name}`
    .toLowerCase()
    .replace(/[^a-z0-9_-]/g, "-")
    .slice(0, 63);
  const principal: Principal = { tenant, agent: "bench", role: "admin", primary: true };
  const turnsOf = new Map<string, string[]>();
  const holds = (id: string, turn: string) => turnsOf.set(id, [...(turnsOf.get(id) ?? []), turn]);
  let position = 0;
  let repeated = 0;
  if (options.factorsOff || options.intentWeight !== undefined) {
    // Usage signals off leaves query understanding on; `--intent` sets it alone.
    const signalsOff = { sentiment: 1, feedback: 1, hotTopic: 1, attention: 1, depth: 1, decay: 1 };
    const weights = {
      ...defaultRankingWeights,
      ...(options.factorsOff ? signalsOff : {}),
      ...(options.intentWeight === undefined ? {} : { intent: options.intentWeight }),
    };
    const changed = await call(nc, commandRpc("tenant.change_settings"), {
      principal,
      settings: { rankingWeights: weights },
    });
    position = changed.position;
  }
  if (options.floor !== undefined) {
    const changed = await call(nc, commandRpc("tenant.change_settings"), {
      principal,
      settings: { retrieval: { ...defaultRetrievalSettings, relevanceFloor: options.floor } },
    });
    position = Math.max(position, changed.position);
  }
  const started = performance.now();
  let done = 0;
  await pooled(conversation.turns, concurrency, async (turn) => {
    try {
      const result = await call(
        nc,
        commandRpc("memory.create"),
        {
          principal,
          memory: {
            slot: `${conversation.name}-${turn.diaId.replace(":", "-")}`,
            kind: "episode",
            content: turn.content,
            validFrom: turn.at,
            source: `locomo:${conversation.name}:${turn.diaId}`,
            // The session the turn was said in, and its place there.
            episode: episodeOf(conversation.name, turn.diaId),
          },
        },
        { timeoutMs: 30_000 },
      );
      holds(result.id, turn.diaId);
      position = Math.max(position, result.position);
    } catch (error) {
      // The same words were said before: the memory that holds them stands for this turn too.
      const holder = (
        isCairnError(error) && error.code === "duplicate_content"
          ? (error.details as { holderId?: unknown } | undefined)?.holderId
          : undefined
      ) as string | undefined;
      if (!holder) throw error;
      holds(holder, turn.diaId);
      repeated += 1;
    }
    done += 1;
    progress(`store ${conversation.name}`, done, conversation.turns.length, started);
  });
  if (repeated > 0) log(`${conversation.name}: ${repeated} turn(s) repeat an earlier one word for word`);
  return { conversation, principal, turnsOf, position, repeated };
}

/** Waits until search (both projections) and ranking have applied `position`. */
async function waitForProjections(nc: NatsConnection, stored: Stored) {
  const deadline = Date.now() + 180_000;
  for (;;) {
    try {
      await call(
        nc,
        searchRpcs.candidates,
        {
          principal: stored.principal,
          query: "wait",
          mode: "hybrid",
          afterPosition: stored.position,
          waitTimeoutMs: 10_000,
        },
        { timeoutMs: 15_000 },
      );
      await call(
        nc,
        rankingRpcs.expand,
        { principal: stored.principal, query: "wait for the projections", afterPosition: stored.position },
        { timeoutMs: 15_000 },
      );
      return;
    } catch (error) {
      if (Date.now() > deadline) throw error;
      log(`waiting for the projections to reach position ${stored.position} (${(error as Error).message})`);
      await sleep(1000);
    }
  }
}

type Dumped = { question: string; expansions: string[]; candidates: CandidateScores[]; ranked: string[] };
const dumped: Dumped[] = [];

async function ask(
  nc: NatsConnection,
  principal: Principal,
  question: string,
  mode: Mode,
  candidateK: number,
  dump: boolean,
  expansionsOff = false,
): Promise<string[]> {
  if (mode !== "full") {
    // One retriever (or their fusion) alone: no episode spreading, which the full path adds.
    const reply = await call(nc, searchRpcs.candidateIds, {
      principal,
      query: question,
      mode,
      candidateK,
      episodes: false,
    });
    return reply.candidates.map((c) => c.id);
  }
  const expanded = await call(nc, rankingRpcs.expand, { principal, query: question });
  if (expanded.skip) return [];
  const expansion = expansionsOff ? { ...expanded, terms: [] } : expanded;
  const candidates = await call(nc, searchRpcs.candidateIds, {
    principal,
    query: question,
    mode: "hybrid",
    candidateK,
    expansions: expansion.terms,
    belowFloor: "mark",
  });
  const reranked = await call(nc, rankingRpcs.rerank, {
    principal,
    query: question,
    candidates: candidates.candidates,
    k: 20,
    expansions: expansion.terms,
  });
  const ranked = reranked.results.map((r) => r.id);
  // The terms ranking proposed, used or not (`--expansions off`), so a dump shows where they fire.
  if (dump) dumped.push({ question, expansions: expanded.terms, candidates: candidates.candidates, ranked });
  return ranked;
}

type ModeResult = {
  figures: RetrievalFigures;
  perCategory: Record<string, RetrievalFigures>;
  latencies: number[];
};

async function runMode(
  nc: NatsConnection,
  stored: Stored[],
  mode: Mode,
  options: Options,
): Promise<ModeResult> {
  const outcomes: QuestionOutcome[] = [];
  const latencies: number[] = [];
  const work = stored.flatMap((s) =>
    s.conversation.questions.slice(0, options.maxQuestions).map((q) => ({ stored: s, question: q })),
  );
  const started = performance.now();
  let done = 0;
  // One question at a time: latency is per query, not under load.
  for (const { stored: s, question } of work) {
    const t0 = performance.now();
    const ids = await ask(
      nc,
      s.principal,
      question.question,
      mode,
      options.candidateK,
      options.dump !== undefined,
      options.expansionsOff,
    );
    latencies.push(performance.now() - t0);
    outcomes.push({
      ranked: ids.map((id) => s.turnsOf.get(id) ?? [id]),
      evidence: question.evidence,
      category: question.category,
    });
    done += 1;
    progress(`query ${mode}`, done, work.length, started);
  }
  return { figures: retrievalFigures(outcomes), perCategory: figuresPerCategory(outcomes), latencies };
}

function runBaseline(conversations: LocomoConversation[], options: Options): ModeResult {
  const outcomes: QuestionOutcome[] = [];
  const latencies: number[] = [];
  for (const conversation of conversations) {
    const index = new Bm25Index(conversation.turns.map((t) => ({ id: t.diaId, text: t.content })));
    for (const q of conversation.questions.slice(0, options.maxQuestions)) {
      const t0 = performance.now();
      const ranked = index.search(q.question, 20);
      latencies.push(performance.now() - t0);
      outcomes.push({ ranked: ranked.map((id) => [id]), evidence: q.evidence, category: q.category });
    }
  }
  return { figures: retrievalFigures(outcomes), perCategory: figuresPerCategory(outcomes), latencies };
}

function row(name: string, result: ModeResult): Row {
  const f = result.figures;
  return {
    mode: name,
    questions: f.questions,
    "recall@5": f.recall5,
    "recall@10": f.recall10,
    "recall@20": f.recall20,
    "hit@10": f.hit10,
    MRR: f.mrr,
    ...Object.fromEntries(
      Object.values(categoryNames).map((name) => [`${name} r@10`, result.perCategory[name]?.recall10 ?? "-"]),
    ),
    "p50 ms": Number(percentile(result.latencies, 50).toFixed(1)),
    "p99 ms": Number(percentile(result.latencies, 99).toFixed(1)),
  };
}

const usage =
  "usage: pnpm bench retrieval [--data DIR] [--mode lexical|vector|hybrid|full|all] [--nats URL]\n" +
  "         [--candidates N] [--questions N] [--concurrency 8] [--factors off] [--expansions off]\n" +
  "         [--intent off|WEIGHT] [--floor SHARE] [--dump FILE] [--json]";

export async function run(args: string[]): Promise<void> {
  const values = ["data", "mode", "nats", "candidates", "questions", "concurrency", "dump"];
  values.push("factors", "expansions", "intent", "floor");
  if (!checkArgs(args, { usage, values })) return;
  const options = parseOptions(args);
  const conversations = loadLocomo(options.data);
  const turns = conversations.reduce((n, c) => n + c.turns.length, 0);
  const questions = conversations.reduce((n, c) => n + c.questions.slice(0, options.maxQuestions).length, 0);
  log(`${conversations.length} conversations, ${turns} turns, ${questions} questions (categories 1-4)`);

  const baseline = runBaseline(conversations, options);
  const deployment = options.natsUrl ? await connectDeployment(options.natsUrl) : await startDeployment();
  const results = new Map<Mode, ModeResult>();
  const stored: Stored[] = [];
  try {
    const runId = randomUUID().slice(0, 8);
    for (const conversation of conversations) {
      stored.push(await storeConversation(deployment.nc, conversation, runId, options));
    }
    for (const s of stored) await waitForProjections(deployment.nc, s);
    for (const mode of options.modes) results.set(mode, await runMode(deployment.nc, stored, mode, options));
  } finally {
    await deployment.stop();
  }
  if (options.dump) {
    const turnIds = new Map(stored.flatMap((s) => [...s.turnsOf]));
    const evidence = new Map(
      conversations.flatMap((c) => c.questions.map((q) => [q.question, q.evidence] as const)),
    );
    const withTurns = dumped.map((d) => ({
      ...d,
      evidence: evidence.get(d.question) ?? [],
      candidates: d.candidates.map((c) => ({ ...c, turns: turnIds.get(c.id) ?? [] })),
    }));
    writeFileSync(options.dump, JSON.stringify(withTurns));
    log(`wrote ${withTurns.length} questions' candidates to ${options.dump}`);
  }

  const rows = [...results.entries()].map(([mode, result]) => row(mode, result));
  rows.push(row("bm25 baseline (in-process)", baseline));
  const summary = {
    bench: "retrieval",
    data: options.data,
    conversations: conversations.length,
    turns,
    questions,
    candidateK: options.candidateK,
    factors: options.factorsOff ? "off" : "tenant defaults",
    expansions: options.expansionsOff ? "off" : "on",
    intent: options.intentWeight === undefined ? "tenant defaults" : options.intentWeight,
    relevanceFloor: options.floor ?? defaultRetrievalSettings.relevanceFloor,
    repeatedTurns: stored.reduce((n, s) => n + s.repeated, 0),
    baseline: {
      ...baseline.figures,
      perCategory: baseline.perCategory,
      p50Ms: percentile(baseline.latencies, 50),
    },
    modes: Object.fromEntries(
      [...results.entries()].map(([mode, r]) => [
        mode,
        {
          ...r.figures,
          perCategory: r.perCategory,
          p50Ms: percentile(r.latencies, 50),
          p99Ms: percentile(r.latencies, 99),
          recall10VsBaseline: r.figures.recall10 / baseline.figures.recall10,
        },
      ]),
    ),
  };
  const factors = [
    options.factorsOff ? "; ranking factors off" : "",
    options.intentWeight === undefined ? "" : `; intent weight ${options.intentWeight}`,
    options.expansionsOff ? "; expansions off" : "",
    options.floor === undefined ? "" : `; relevance floor ${options.floor}`,
  ].join("");
  report(`Retrieval on ${options.data} (evidence recall; latency per query${factors})`, rows, summary, args);
}

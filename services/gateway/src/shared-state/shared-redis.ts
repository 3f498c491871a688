// The Redis the gateway's copies share their state in (MCP sessions, rate limits, failed-key
// counts, the callers' last write positions), and the one rule for when it is away: each store
// answers from this copy's memory instead, so a Redis outage never fails a request that could
// be served, and the shared answer comes back by itself once Redis does.
//
// The connection fails fast: no offline queue (a command while disconnected is refused at
// once) and a command timeout, so a dead or hung Redis costs a request at most one timeout;
// after a failure, requests use the copy's memory without trying Redis until a probe answers.
import type { Logger } from "@cairn/telemetry";
import { Redis } from "ioredis";

export type SharedRedisOptions = {
  url: string;
  /** Prefix of every key the gateway keeps (default `cairn:gateway:`). */
  prefix?: string;
  logger: Logger;
  /** How long a command may take before Redis counts as away (default 500 ms). */
  commandTimeoutMs?: number;
  /** How often a probe asks Redis whether it is back (default 1 s). */
  probeIntervalMs?: number;
  /** How long start waits for the first connection (default 5 s); after that the gateway starts anyway. */
  connectWaitMs?: number;
};

export type SharedRedis = {
  readonly redis: Redis;
  /** `<prefix><name>`: every key the gateway writes is under its prefix. */
  key(name: string): string;
  /**
   * Runs `shared` against Redis; while Redis is away, or when the call fails, runs `local` (this
   * copy's memory) instead. `local` may throw a CairnError (e.g. `unavailable`) when this copy
   * cannot answer alone.
   */
  attempt<T>(shared: (redis: Redis) => Promise<T>, local: () => T | Promise<T>): Promise<T>;
  /** Whether requests use Redis now (false from a failure until Redis answers again). */
  readonly available: boolean;
  /** Called each time Redis answers again after an outage (e.g. to write back what was kept locally). */
  onRecovered(listener: (redis: Redis) => Promise<void> | void): void;
  close(): void;
};

/** A Lua script run with EVALSHA (EVAL the first time), as a function of its keys and arguments. */
export type RedisScript<T> = (redis: Redis, keys: string[], args: (string | number)[]) => Promise<T>;

export function redisScript<T>(name: string, lua: string): RedisScript<T> {
  const defined = new WeakSet<Redis>();
  return (redis, keys, args) => {
    if (!defined.has(redis)) {
      redis.defineCommand(name, { lua });
      defined.add(redis);
    }
    // defineCommand adds `name` to this client; without numberOfKeys it takes the count first.
    const command = (redis as unknown as Record<string, (...a: (string | number)[]) => Promise<T>>)[name];
    if (!command) throw new Error(`redis script ${name} is not defined`);
    return command.call(redis, keys.length, ...keys, ...args);
  };
}

export async function connectSharedRedis(options: SharedRedisOptions): Promise<SharedRedis> {
  const { logger } = options;
  const prefix = options.prefix ?? "cairn:gateway:";
  const probeIntervalMs = options.probeIntervalMs ?? 1000;
  const redis = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs ?? 500,
    connectTimeout: 2000,
    // ioredis reconnects by itself; a capped backoff keeps an outage from costing a busy loop.
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  const listeners: ((redis: Redis) => Promise<void> | void)[] = [];
  let available = false;
  /** Whether an outage was reported (a warning logged): Redis's next answer ends it. */
  let outageReported = false;
  let closed = false;
  let probe: NodeJS.Timeout | undefined;

  const recovered = () => {
    if (available || closed) return;
    available = true;
    if (probe) clearTimeout(probe);
    probe = undefined;
    if (outageReported) {
      logger.info(
        "redis answers again: MCP sessions, rate limits and the failed-key throttle are shared again",
      );
    }
    outageReported = false;
    // A write-back that fails (Redis refused a write, or went away again) counts as Redis
    // being away: requests use this copy's memory again, and the probe's next answer runs the
    // write-backs again, so what was kept here reaches the other copies once Redis takes it.
    for (const listener of listeners) {
      void Promise.resolve()
        .then(() => listener(redis))
        .catch((err: unknown) => {
          logger.warn({ err }, "writing back state kept while redis was away failed; trying again");
          wentAway(err);
        });
    }
  };
  const scheduleProbe = () => {
    if (probe || closed) return;
    probe = setTimeout(() => {
      probe = undefined;
      if (redis.status !== "ready") return scheduleProbe();
      redis.ping().then(recovered, scheduleProbe);
    }, probeIntervalMs);
    probe.unref();
  };
  const wentAway = (err: unknown) => {
    if (closed) return;
    if (available) {
      logger.warn(
        { err },
        "redis is away: this copy keeps its own MCP sessions, rate limits and failed-key counts until it is back",
      );
      outageReported = true;
    }
    available = false;
    scheduleProbe();
  };
  // Every failed reconnection attempt emits `error`; one line per outage is enough (above).
  redis.on("error", wentAway);
  // A lost connection is an outage even when no attempt fails (Redis back before the next
  // one): what was kept here meanwhile is written back when it is ready again.
  redis.on("close", () => wentAway(new Error("redis connection closed")));
  redis.on("end", () => wentAway(new Error("redis connection ended")));
  redis.on("ready", recovered);

  const connectWaitMs = options.connectWaitMs ?? 5000;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      if (!available) {
        logger.warn(
          { waitedMs: connectWaitMs },
          "redis not reachable at start: state stays per copy until it is",
        );
        outageReported = true;
        scheduleProbe();
      }
      resolve();
    }, connectWaitMs);
    timer.unref();
    redis.once("ready", () => {
      clearTimeout(timer);
      resolve();
    });
  });

  return {
    redis,
    key: (name) => `${prefix}${name}`,
    get available() {
      return available;
    },
    async attempt(shared, local) {
      if (available && redis.status === "ready") {
        try {
          return await shared(redis);
        } catch (error) {
          wentAway(error);
        }
      }
      return local();
    },
    onRecovered(listener) {
      listeners.push(listener);
    },
    close() {
      closed = true;
      if (probe) clearTimeout(probe);
      redis.disconnect();
    },
  };
}

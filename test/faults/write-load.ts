// A bounded REST write load as well-behaved clients make it: each client writes its share
// one after another, every write with its own Idempotency-Key, and retries a write that got
// 503/504/429 (after its Retry-After), a timeout or a broken connection with the same key and
// body, so a retry can never write twice. Every attempt's answer is kept for the report.

/** What one attempt got: an HTTP status, or no answer at all. */
export type AttemptResult = number | "timeout" | "network";

/** `at`: when it was sent; `ms`: how long until its answer (or until it gave up). */
export type Attempt = { result: AttemptResult; retryAfter: string | null; at: number; ms: number };

export type WriteOutcome = {
  client: number;
  slot: string;
  attempts: Attempt[];
  /** The 201's body, when an attempt was acknowledged. */
  acknowledged: { id: string; position: number } | null;
};

export type WriteLoadOptions = {
  baseUrl: string;
  apiKey: string;
  /** Slots are `<prefix>/<client>-<n>`; the content names them too. */
  prefix: string;
  writes: number;
  clients: number;
  /** Whether a retry is safe (the gateway honours Idempotency-Key); without, each write is tried once. */
  retries: boolean;
  /** Called after each write is settled, with how many are. */
  onSettled?: (settled: number) => void;
};

const requestTimeoutMs = 15_000;
const maxAttempts = 12;
const retryable = new Set<AttemptResult>([503, 504, 429, "timeout", "network"]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long to wait before the next attempt: Retry-After when given (at most 5 s), else a doubling pause. */
function pauseBefore(attempt: number, retryAfter: string | null): number {
  const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.min(seconds * 1000, 5000);
  return Math.min(250 * 2 ** attempt, 2000);
}

export async function postMemory(
  options: Pick<WriteLoadOptions, "baseUrl" | "apiKey">,
  body: unknown,
  idempotencyKey: string,
): Promise<{ attempt: Attempt; json: unknown }> {
  const at = Date.now();
  try {
    const response = await fetch(`${options.baseUrl}/v1/memories`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${options.apiKey}`,
        "content-type": "application/json",
        "Idempotency-Key": idempotencyKey,
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const json = await response.json().catch(() => null);
    const retryAfter = response.headers.get("retry-after");
    return { attempt: { result: response.status, retryAfter, at, ms: Date.now() - at }, json };
  } catch (error) {
    const name = (error as Error).name;
    const result = name === "TimeoutError" || name === "AbortError" ? "timeout" : "network";
    return { attempt: { result, retryAfter: null, at, ms: Date.now() - at }, json: null };
  }
}

async function write(options: WriteLoadOptions, client: number, n: number): Promise<WriteOutcome> {
  const slot = `${options.prefix}/${client}-${n}`;
  const body = { slot, content: `Fault suite write ${n} of client ${client} under ${options.prefix}.` };
  const key = `${slot}#${Math.random().toString(36).slice(2)}`;
  const outcome: WriteOutcome = { client, slot, attempts: [], acknowledged: null };
  for (let i = 0; i < (options.retries ? maxAttempts : 1); i += 1) {
    const { attempt, json } = await postMemory(options, body, key);
    outcome.attempts.push(attempt);
    if (attempt.result === 201) {
      outcome.acknowledged = json as { id: string; position: number };
      break;
    }
    if (!retryable.has(attempt.result)) break;
    await sleep(pauseBefore(i, attempt.retryAfter));
  }
  return outcome;
}

/** Runs the load to the end and returns every write's outcome. */
export async function runWriteLoad(options: WriteLoadOptions): Promise<WriteOutcome[]> {
  const outcomes: WriteOutcome[] = [];
  const perClient = Math.ceil(options.writes / options.clients);
  await Promise.all(
    Array.from({ length: options.clients }, async (_, client) => {
      for (let n = 0; n < perClient && client * perClient + n < options.writes; n += 1) {
        outcomes.push(await write(options, client, n));
        options.onSettled?.(outcomes.length);
      }
    }),
  );
  return outcomes;
}

/**
 * Whether the gateway makes a write with an Idempotency-Key safe to retry: the same key and
 * body a second time answers the first write again instead of writing or refusing.
 */
export async function gatewayHonoursIdempotencyKey(
  options: Pick<WriteLoadOptions, "baseUrl" | "apiKey" | "prefix">,
): Promise<boolean> {
  const body = { slot: `${options.prefix}/probe`, content: `Idempotency probe under ${options.prefix}.` };
  const key = `${options.prefix}/probe`;
  const first = await postMemory(options, body, key);
  const second = await postMemory(options, body, key);
  const id = (r: { json: unknown }) => (r.json as { id?: string } | null)?.id;
  return first.attempt.result === 201 && second.attempt.result === 201 && id(first) === id(second);
}

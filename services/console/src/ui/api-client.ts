// Calls to the gateway's REST API with the signed-in API key as Bearer. The console holds no
// rights of its own: what the key may see and do is what the server answers. A refusal comes
// back as the server's problem (RFC 9457), which the pages show as it is.

/** The server's problem+json, or one made here when the gateway did not answer. */
export type Problem = {
  status: number;
  code: string;
  title: string;
  detail: string;
  hint?: string;
  details?: Record<string, unknown>;
};

export class ApiError extends Error {
  readonly problem: Problem;
  constructor(problem: Problem) {
    super(problem.detail);
    this.name = "ApiError";
    this.problem = problem;
  }
}

export function problemOf(error: unknown): Problem {
  if (error instanceof ApiError) return error.problem;
  return {
    status: 0,
    code: "console_error",
    title: "Something went wrong in the console",
    detail: error instanceof Error ? error.message : String(error),
  };
}

export type QueryValue = string | number | boolean | undefined | null;

export type RequestOptions = {
  query?: Record<string, QueryValue>;
  body?: unknown;
  /** The version a change applies to: sent as `If-Match`. */
  ifMatch?: number | string;
};

export type ApiResponse<T> = { data: T; status: number; etag: string | null };

export type Api = {
  request<T>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T>(path: string, query?: Record<string, QueryValue>): Promise<T>;
};

/** `/v1/memories` + `{ q: "x", limit: 5 }` → `/v1/memories?q=x&limit=5` (empty values left out). */
export function withQuery(path: string, query: Record<string, QueryValue> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined || value === null || value === "") continue;
    params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function problemFrom(response: Response): Promise<Problem> {
  const fallback: Problem = {
    status: response.status,
    code: `http_${response.status}`,
    title: response.statusText || "The request failed",
    detail: `the gateway answered ${response.status}`,
  };
  try {
    const body = (await response.json()) as Partial<Problem>;
    return typeof body.detail === "string" ? { ...fallback, ...body, status: response.status } : fallback;
  } catch {
    return fallback;
  }
}

/**
 * An API bound to one key. `onUnauthenticated` runs when the server no longer takes the key
 * (revoked meanwhile), so the console signs out instead of failing page after page.
 */
export function createApi(apiKey: string, onUnauthenticated: (problem: Problem) => void): Api {
  async function request<T>(method: string, path: string, options: RequestOptions = {}) {
    const headers: Record<string, string> = { authorization: `Bearer ${apiKey}`, accept: "application/json" };
    if (options.body !== undefined) headers["content-type"] = "application/json";
    if (options.ifMatch !== undefined) headers["if-match"] = `"${options.ifMatch}"`;
    let response: Response;
    try {
      response = await fetch(withQuery(path, options.query), {
        method,
        headers,
        // Never let the browser replay a stored answer for another key.
        cache: "no-store",
        credentials: "omit",
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
      });
    } catch (cause) {
      throw new ApiError({
        status: 0,
        code: "unreachable",
        title: "The gateway did not answer",
        detail: cause instanceof Error ? cause.message : "the request could not be sent",
        hint: "check that Cairn is running, then try again",
      });
    }
    if (!response.ok) {
      const problem = await problemFrom(response);
      if (response.status === 401) onUnauthenticated(problem);
      throw new ApiError(problem);
    }
    const text = await response.text();
    return {
      data: (text ? JSON.parse(text) : null) as T,
      status: response.status,
      etag: response.headers.get("etag"),
    };
  }
  return {
    request,
    get: async <T>(path: string, query?: Record<string, QueryValue>) =>
      (await request<T>("GET", path, query === undefined ? {} : { query })).data,
  };
}

/** `"3"` or `W/"3"` → 3: the version an ETag names. */
export function versionOfEtag(etag: string | null): number | undefined {
  const match = etag ? /^(?:W\/)?"?(\d+)"?$/.exec(etag.trim()) : null;
  return match ? Number(match[1]) : undefined;
}

// The key graph (Key → Memory → Key): the keys a question brings to mind, a key with the
// memories it leads to, and from each memory its own keys (on the memory's page). Walking it
// here reads; it does not reinforce the links as an agent's `read_memory` through a key does.
import { useEffect, useState } from "preact/hooks";
import { Badge, num } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { Pager, pageOf, pageParam } from "../components/pager.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { href, navigate, type Route } from "../router.ts";
import { useLoad } from "../use-load.ts";

type GraphKey = { id: string | null; label: string; type: string | null };
type RecalledKey = GraphKey & { score: number; memoryCount: number };
type KeyReply = {
  key: GraphKey;
  memories: { id: string; slot: string; title: string; weight: number | null }[];
  source: string;
};

export function KeysPage({ route }: { route: Route }) {
  const { api } = useConsole();
  const q = route.query.get("q") ?? "";
  const page = pageParam(route.query.get("page"));
  const [draft, setDraft] = useState(q);
  useEffect(() => setDraft(q), [q]);
  const { result, busy, reload } = useLoad(
    async () => (q ? api.get<{ keys: RecalledKey[]; source: string }>("/v1/keys", { q, limit: 50 }) : null),
    [q],
  );
  const keys = result.state === "ok" ? (result.data?.keys ?? null) : null;
  const shown = keys ? pageOf(keys, page) : null;
  return (
    <Page title="Key graph">
      <search>
        <form
          class="search-form"
          onSubmit={(event) => {
            event.preventDefault();
            navigate(["keys"], { q: draft.trim() });
          }}
        >
          <div class="search-line">
            <label class="visually-hidden" for="key-query">
              Keys for
            </label>
            <input
              id="key-query"
              type="search"
              placeholder="Which keys does this bring to mind?"
              value={draft}
              onInput={(e) => setDraft(e.currentTarget.value)}
            />
            <button type="submit">Recall keys</button>
          </div>
        </form>
      </search>
      <Pager
        page={page}
        pages={shown?.pages ?? 1}
        hrefOf={(p) => href(["keys"], { q, page: p })}
        summary={
          busy && q
            ? "Recalling…"
            : keys
              ? `${keys.length} keys · from ${result.state === "ok" ? result.data?.source : ""}`
              : "Ask a question to see its keys."
        }
      />
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "loading" && q ? <LoadingRows rows={6} /> : null}
      {shown ? (
        shown.items.length ? (
          <ul class="rows">
            {shown.items.map((k) => (
              <li key={k.id ?? k.label} class="row">
                <div class="row-head">
                  <a class="row-title" href={href(["keys", k.label])}>
                    {k.label}
                  </a>
                  <span class="score">score {num(k.score)}</span>
                </div>
                <div class="row-meta">
                  {k.type ? <Badge>{k.type}</Badge> : null}
                  <span class="muted">
                    {k.memoryCount} {k.memoryCount === 1 ? "memory" : "memories"}
                  </span>
                </div>
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">No keys for “{q}”.</p>
        )
      ) : null}
    </Page>
  );
}

export function KeyPage({ label }: { label: string }) {
  const { api } = useConsole();
  const { result, reload } = useLoad(
    () => api.get<KeyReply>(`/v1/keys/${encodeURIComponent(label)}`, { limit: 50, consistency: "strong" }),
    [label],
  );
  return (
    <Page title="Key">
      <p class="back">
        <a href={href(["keys"])}>‹ Key graph</a>
      </p>
      {result.state === "loading" ? <LoadingRows rows={4} /> : null}
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "ok" ? (
        <article aria-labelledby="key-title">
          <h2 id="key-title">{result.data.key.label}</h2>
          <p class="row-meta">
            {result.data.key.type ? <Badge>{result.data.key.type}</Badge> : null}
            <span class="muted">
              {result.data.memories.length} memories · from {result.data.source}
            </span>
          </p>
          {result.data.memories.length ? (
            <ul class="rows">
              {result.data.memories.map((m) => (
                <li key={m.id} class="row">
                  <div class="row-head">
                    <a class="row-title" href={href(["memories", m.id])}>
                      {m.title || m.slot}
                    </a>
                    {m.weight === null ? null : <span class="score">weight {num(m.weight)}</span>}
                  </div>
                  <div class="row-meta">
                    <code class="slot">{m.slot}</code>
                  </div>
                </li>
              ))}
            </ul>
          ) : (
            <p class="empty">It leads to no memory your API key may see.</p>
          )}
        </article>
      ) : null}
    </Page>
  );
}

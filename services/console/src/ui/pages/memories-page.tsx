// Memories: search with the ranking's explanation of every result, or the newest without a
// query; filters by tier, status, kind, scope, agent and tags. The filters and the page are
// in the hash, so a search can be bookmarked and the back button walks back through them.
import type { MemoryDocument, SearchExplanation } from "@cairn/contracts";
import { useEffect, useState } from "preact/hooks";
import type { Api } from "../api-client.ts";
import { LoadingRows } from "../components/loading-rows.tsx";
import { MemoryRow } from "../components/memory-row.tsx";
import { Page } from "../components/page.tsx";
import { Pager, pageOf, pageParam } from "../components/pager.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { href, navigate, type Route } from "../router.ts";
import { useLoad } from "../use-load.ts";
import { vocabulary } from "../vocabulary.ts";

const filterNames = ["q", "tier", "status", "kind", "scope", "agent", "tags"] as const;
type FilterName = (typeof filterNames)[number];
export type Filters = Record<FilterName, string>;

/** `status=any`: every status (without it, each tier's default: active, pending, open). */
const anyStatus = "any";

/** How many results a search asks for; the console pages through them. */
const fetchLimit = 200;

function filtersOf(route: Route): Filters {
  const out = {} as Filters;
  for (const name of filterNames) out[name] = route.query.get(name) ?? "";
  return out;
}

type Hit = { document: MemoryDocument; score?: number; explanation?: SearchExplanation | undefined };
type Found = { hits: Hit[]; ranking: string | null; filteredHere: string[] };

const csv = (value: string) =>
  value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * What the server filters, it filters; the rest (scope always, and kind, agent and tags where
 * a route has no such filter) is applied here to the results it returned.
 */
function filterHere(hits: Hit[], filters: Filters, serverFilters: readonly FilterName[]) {
  const tags = csv(filters.tags);
  const checks: [FilterName, (d: MemoryDocument) => boolean][] = [
    ["scope", (d) => d.scope === filters.scope],
    ["kind", (d) => d.kind === filters.kind],
    ["agent", (d) => d.agent === filters.agent],
    ["tags", (d) => tags.every((t) => d.tags.includes(t))],
  ];
  const applied = checks.filter(([name]) => filters[name] !== "" && !serverFilters.includes(name));
  return {
    hits: hits.filter((h) => applied.every(([, check]) => check(h.document))),
    filteredHere: applied.map(([name]) => name),
  };
}

async function findMemories(api: Api, filters: Filters): Promise<Found> {
  const status = filters.status === anyStatus ? vocabulary.statuses.join(",") : filters.status;
  const tier = filters.tier || "memory";
  if (tier === "memory" && filters.q) {
    const reply = await api.get<{ results: Hit[]; ranking: string }>("/v1/memories", {
      q: filters.q,
      explain: true,
      status,
      kind: filters.kind,
      tags: filters.tags,
      author: filters.agent,
      limit: fetchLimit,
      consistency: "strong",
    });
    return { ...filterHere(reply.results, filters, ["kind", "tags", "agent"]), ranking: reply.ranking };
  }
  if (tier === "memory") {
    const reply = await api.get<{ results: Hit[] }>("/v1/memories", {
      status,
      limit: fetchLimit,
      consistency: "strong",
    });
    return {
      ...filterHere(
        reply.results.map((r) => ({ document: r.document })),
        filters,
        [],
      ),
      ranking: null,
    };
  }
  const reply = await api.get<{ items: MemoryDocument[] }>(
    tier === "proposal" ? "/v1/proposals" : "/v1/handoffs",
    {
      q: filters.q,
      status,
      limit: fetchLimit,
      consistency: "strong",
    },
  );
  return {
    ...filterHere(
      reply.items.map((document) => ({ document })),
      filters,
      [],
    ),
    ranking: null,
  };
}

function Select({
  name,
  label,
  value,
  options,
  onChange,
  empty,
}: {
  name: FilterName;
  label: string;
  value: string;
  options: readonly string[];
  onChange: (name: FilterName, value: string) => void;
  empty: string;
}) {
  return (
    <label class="field">
      <span>{label}</span>
      <select name={name} value={value} onChange={(e) => onChange(name, e.currentTarget.value)}>
        <option value="">{empty}</option>
        {options.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
    </label>
  );
}

function SearchForm({ filters }: { filters: Filters }) {
  const [draft, setDraft] = useState(filters);
  const routeKey = JSON.stringify(filters);
  // The draft follows the route (the back button, a link to a search).
  useEffect(() => setDraft(filters), [routeKey]);
  const set = (name: FilterName, value: string) => setDraft((d) => ({ ...d, [name]: value }));
  return (
    <search>
      <form
        class="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(["memories"], { ...draft });
        }}
      >
        <div class="search-line">
          <label class="visually-hidden" for="memory-query">
            Search memories
          </label>
          <input
            id="memory-query"
            type="search"
            name="q"
            placeholder="What are you looking for?"
            value={draft.q}
            onInput={(e) => set("q", e.currentTarget.value)}
          />
          <button type="submit">Search</button>
        </div>
        <div class="filters">
          <Select
            name="tier"
            label="Tier"
            value={draft.tier}
            options={vocabulary.tiers.filter((t) => t !== "memory")}
            onChange={set}
            empty="memory"
          />
          <Select
            name="status"
            label="Status"
            value={draft.status}
            options={[anyStatus, ...vocabulary.statuses]}
            onChange={set}
            empty="default"
          />
          <Select
            name="kind"
            label="Kind"
            value={draft.kind}
            options={vocabulary.kinds}
            onChange={set}
            empty="any"
          />
          <Select
            name="scope"
            label="Scope"
            value={draft.scope}
            options={vocabulary.scopes}
            onChange={set}
            empty="any"
          />
          <label class="field">
            <span>Agent</span>
            <input name="agent" value={draft.agent} onInput={(e) => set("agent", e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>Tags</span>
            <input
              name="tags"
              placeholder="a, b"
              value={draft.tags}
              onInput={(e) => set("tags", e.currentTarget.value)}
            />
          </label>
        </div>
      </form>
    </search>
  );
}

export function MemoriesPage({ route }: { route: Route }) {
  const { api } = useConsole();
  const filters = filtersOf(route);
  const page = pageParam(route.query.get("page"));
  const searchKey = JSON.stringify(filters);
  const { result, busy, reload } = useLoad(() => findMemories(api, filters), [searchKey]);
  const found = result.state === "ok" ? result.data : null;
  const shown = found ? pageOf(found.hits, page) : null;
  const summary = busy
    ? "Searching…"
    : found
      ? `${found.hits.length} ${found.hits.length === 1 ? "memory" : "memories"}${
          found.ranking ? ` · ${found.ranking === "ranked" ? "ranked" : "search order"}` : " · newest first"
        }${found.filteredHere.length ? ` · ${found.filteredHere.join(", ")} filtered in the console` : ""}`
      : "";
  return (
    <Page title="Memories">
      <SearchForm filters={filters} />
      <Pager
        page={page}
        pages={shown?.pages ?? 1}
        hrefOf={(p) => href(["memories"], { ...filters, page: p })}
        summary={summary}
      />
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "loading" ? <LoadingRows rows={6} /> : null}
      {shown ? (
        shown.items.length ? (
          <ul class="rows" aria-busy={busy}>
            {shown.items.map((hit) => (
              <MemoryRow
                key={hit.document.id}
                document={hit.document}
                score={hit.score}
                explanation={hit.explanation}
              />
            ))}
          </ul>
        ) : (
          <p class="empty">Nothing found{filters.q ? ` for “${filters.q}”` : ""}.</p>
        )
      ) : null}
    </Page>
  );
}

// The inbox and the handoffs: a tier's records, newest first, by status, a page at a time,
// each as a card with the changes a person can make to it.
import type { MemoryDocument } from "@cairn/contracts";
import type { ComponentChildren } from "preact";
import { useState } from "preact/hooks";
import { useConsole } from "../console-context.ts";
import { href, type Route } from "../router.ts";
import { useLoad } from "../use-load.ts";
import { LoadingRows } from "./loading-rows.tsx";
import { Pager, pageOf, pageParam } from "./pager.tsx";
import { ProblemMessage } from "./problem-message.tsx";

export type RecordListProps = {
  section: string;
  /** `/v1/proposals` or `/v1/handoffs`. */
  path: string;
  route: Route;
  /** The status filters offered; the first is the route's default. `any` is every status. */
  statuses: { value: string; label: string }[];
  noun: [string, string];
  card: (document: MemoryDocument, list: ListHooks) => ComponentChildren;
};

/** What a card tells its list: a change went through (say so, reload), or reload only. */
export type ListHooks = { changed: (notice: Notice) => void; reload: () => void };

/** What a change did, shown above the list (in a line that is always there, so nothing moves). */
export type Notice = { message: string; link?: { href: string; label: string } };

export function RecordList({ section, path, route, statuses, noun, card }: RecordListProps) {
  const { api, announce } = useConsole();
  const [notice, setNotice] = useState<Notice | null>(null);
  const status = route.query.get("status") ?? statuses[0]?.value ?? "";
  const page = pageParam(route.query.get("page"));
  const { result, busy, reload } = useLoad(
    () => api.get<{ items: MemoryDocument[] }>(path, { status, limit: 500, consistency: "strong" }),
    [path, status],
  );
  const changed = (next: Notice) => {
    announce(next.message);
    setNotice(next);
    reload();
  };
  const items = result.state === "ok" ? result.data.items : null;
  const shown = items ? pageOf(items, page) : null;
  return (
    <>
      <nav class="tabs" aria-label="Status">
        {statuses.map((s) => (
          <a
            key={s.value}
            href={href([section], { status: s.value })}
            aria-current={s.value === status ? "page" : undefined}
          >
            {s.label}
          </a>
        ))}
      </nav>
      <Pager
        page={page}
        pages={shown?.pages ?? 1}
        hrefOf={(p) => href([section], { status, page: p })}
        summary={busy ? "Loading…" : items ? `${items.length} ${items.length === 1 ? noun[0] : noun[1]}` : ""}
      />
      <p class="notice-line" role="status">
        {notice ? (
          <>
            {notice.message} {notice.link ? <a href={notice.link.href}>{notice.link.label}</a> : null}
          </>
        ) : null}
      </p>
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "loading" ? <LoadingRows rows={3} kind="card" /> : null}
      {shown ? (
        shown.items.length ? (
          <ul class="cards" aria-busy={busy}>
            {shown.items.map((d) => (
              <li key={`${d.id}@${d.version}`} class="card">
                {card(d, { changed, reload })}
              </li>
            ))}
          </ul>
        ) : (
          <p class="empty">No {noun[1]} here.</p>
        )
      ) : null}
    </>
  );
}

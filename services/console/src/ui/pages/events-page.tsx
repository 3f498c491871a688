// The event log as a timeline (admins): the tenant's events or one stream's, newest first —
// who, when, what, and the text of a version when the admin may see that memory.
import type { StreamType } from "@cairn/contracts";
import { useEffect, useState } from "preact/hooks";
import { Badge, Time } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { PagerBar, PagerStep } from "../components/pager.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { href, navigate, type Route } from "../router.ts";
import { useLoad } from "../use-load.ts";

/** `GET /v1/events` (services/gateway/src/rest/routes/events.ts). */
type TimelineEvent = {
  position: number;
  at: string;
  actor: string;
  type: string;
  streamId: string | null;
  streamType: StreamType;
  version: number;
  correlationId: string;
  memoryIds: string[];
  visible: boolean;
  data: Record<string, unknown> | null;
  text: { title: string | null; content: string | null } | null;
};
type Timeline = { events: TimelineEvent[]; next: number | null };

const pageLimit = 50;

/** A data field as one short line: lists joined, objects as JSON. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return "—";
  if (Array.isArray(value)) return value.length ? value.map((v) => valueText(v)).join(", ") : "none";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function EventRow({ event: e }: { event: TimelineEvent }) {
  const memoryId = e.streamType === "memory" ? e.memoryIds[0] : undefined;
  return (
    <li class="row event-row">
      <div class="row-head">
        <code class="event-type">{e.type}</code>
        <span class="muted">#{e.position}</span>
      </div>
      <div class="row-meta">
        <span>
          <strong>{e.actor}</strong> · <Time iso={e.at} />
        </span>
        {e.streamId ? (
          <a href={href(["events"], { stream: e.streamId })} title="Only this stream's events">
            {e.streamId}@{e.version}
          </a>
        ) : (
          <Badge tone="muted">a memory you may not see</Badge>
        )}
        {memoryId ? <a href={href(["memories", memoryId])}>open the memory</a> : null}
      </div>
      {e.data && Object.keys(e.data).length ? (
        <details>
          <summary>Data</summary>
          <dl class="facts">
            {Object.entries(e.data).map(([field, value]) => (
              <div key={field}>
                <dt>{field}</dt>
                <dd>{valueText(value)}</dd>
              </div>
            ))}
          </dl>
        </details>
      ) : null}
      {e.text ? (
        <details>
          <summary>Text of this version</summary>
          {e.text.content === null ? (
            <p class="muted">Erased (purged).</p>
          ) : (
            <>
              <p class="content-title">{e.text.title}</p>
              <div class="content">{e.text.content}</div>
            </>
          )}
        </details>
      ) : null}
    </li>
  );
}

export function EventsPage({ route }: { route: Route }) {
  const { api } = useConsole();
  const stream = route.query.get("stream") ?? "";
  const before = route.query.get("before") ?? "";
  const [draft, setDraft] = useState(stream);
  useEffect(() => setDraft(stream), [stream]);
  const { result, busy, reload } = useLoad(
    () => api.get<Timeline>("/v1/events", { stream, before, limit: pageLimit }),
    [stream, before],
  );
  const timeline = result.state === "ok" ? result.data : null;
  const count = timeline
    ? `${timeline.events.length} ${timeline.events.length === 1 ? "event" : "events"}`
    : "";
  const summary = busy
    ? "Loading…"
    : timeline
      ? `${count}${stream ? ` of ${stream}` : ""}, newest first`
      : "";
  return (
    <Page title="Events">
      <form
        class="search-form"
        onSubmit={(event) => {
          event.preventDefault();
          navigate(["events"], { stream: draft.trim() });
        }}
      >
        <div class="search-line">
          <label class="visually-hidden" for="event-stream">
            Stream
          </label>
          <input
            id="event-stream"
            placeholder="All of the tenant's streams, or one: memory-<id>, tenant-<tenant>, key-<id>"
            value={draft}
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
          <button type="submit">Show</button>
        </div>
      </form>
      <PagerBar summary={summary}>
        <PagerStep target={before ? href(["events"], { stream }) : null} label="Newest events">
          « Newest
        </PagerStep>
        <PagerStep
          target={timeline?.next ? href(["events"], { stream, before: timeline.next }) : null}
          label="Older events"
        >
          Older ›
        </PagerStep>
      </PagerBar>
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "loading" ? <LoadingRows rows={8} /> : null}
      {timeline ? (
        timeline.events.length ? (
          <ol class="rows" aria-busy={busy}>
            {timeline.events.map((e) => (
              <EventRow key={e.position} event={e} />
            ))}
          </ol>
        ) : (
          <p class="empty">No events.</p>
        )
      ) : null}
    </Page>
  );
}

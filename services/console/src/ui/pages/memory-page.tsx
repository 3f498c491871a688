// One memory (any tier): its content, labels, links and backlinks, keys (each a step into the
// key graph), its neighbours in its episode, and every version from the log.
import type { GetMemoryReply, HistoryReply, LinkRef, MemoryDocument } from "@cairn/contracts";
import { Badge, Facts, TagList, Time } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { MemoryBadges } from "../components/memory-row.tsx";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { isAdmin, useConsole } from "../console-context.ts";
import { href } from "../router.ts";
import { useLoad } from "../use-load.ts";

function MemoryLink({ id, label }: { id: string | null | undefined; label?: string }) {
  if (!id) return <span class="muted">—</span>;
  return <a href={href(["memories", id])}>{label ?? id}</a>;
}

function LinkList({ refs, empty }: { refs: readonly LinkRef[]; empty: string }) {
  if (refs.length === 0) return <p class="muted">{empty}</p>;
  return (
    <ul class="link-list">
      {refs.map((r) => (
        <li key={r.id}>
          <MemoryLink id={r.id} label={r.title || r.slot} /> <code class="slot">{r.slot}</code>{" "}
          <Badge>{r.tier}</Badge> <Badge>{r.status}</Badge>
        </li>
      ))}
    </ul>
  );
}

function KeyLinks({ keys }: { keys: readonly string[] }) {
  if (keys.length === 0) return <p class="muted">No keys.</p>;
  return (
    <ul class="tag-list" aria-label="Keys">
      {keys.map((k) => (
        <li key={k}>
          <a href={href(["keys", k])}>{k}</a>
        </li>
      ))}
    </ul>
  );
}

function History({ history }: { history: HistoryReply }) {
  return (
    <ol class="history">
      {[...history.versions].reverse().map((v) => (
        <li key={v.version}>
          <div class="row-meta">
            <strong>v{v.version}</strong> <code>{v.type}</code> <Badge>{v.status}</Badge>
            <span class="muted">
              by {v.agent} · <Time iso={v.at} /> · position {v.position}
            </span>
          </div>
          {v.changed.length ? <p class="muted">Changed: {v.changed.join(", ")}</p> : null}
          {v.note ? <p>Note: {v.note}</p> : null}
          {v.content === null ? (
            <p class="muted">Text erased (purged).</p>
          ) : (
            <details>
              <summary>Text of v{v.version}</summary>
              <p class="content-title">{v.title}</p>
              <div class="content">{v.content}</div>
            </details>
          )}
        </li>
      ))}
    </ol>
  );
}

function Details({ read, history }: { read: GetMemoryReply; history: HistoryReply }) {
  const { principal } = useConsole();
  const d: MemoryDocument = read.document;
  return (
    <article class="memory" aria-labelledby="memory-title">
      <header class="memory-head">
        <h2 id="memory-title">{d.title || d.slot}</h2>
        <div class="row-meta">
          <code class="slot">{d.slot}</code>
          <MemoryBadges document={d} />
          <span class="muted">version {d.version}</span>
        </div>
      </header>
      {d.purgedAt ? <p class="muted">This memory was purged: its text is gone.</p> : null}
      <div class="content">{d.content}</div>
      <div class="columns">
        <section aria-labelledby="facts-title">
          <h3 id="facts-title">Facts</h3>
          <Facts
            rows={[
              ["Id", <code key="id">{d.id}</code>],
              ["Agent", d.agent],
              ["Tenant", d.tenant],
              ["Project", d.project ?? "—"],
              ["Source", d.source ?? "—"],
              ["Created", <Time key="c" iso={d.createdAt} />],
              ["Updated", <Time key="u" iso={d.updatedAt} />],
              ["Valid from", <Time key="v" iso={d.validFrom} />],
              ["Invalid at", <Time key="i" iso={d.invalidAt} />],
              ["Verified", <Time key="ve" iso={d.verifiedAt} />],
              ["Supersedes", <MemoryLink key="s" id={d.supersedes} />],
              ["Superseded by", <MemoryLink key="sb" id={d.supersededBy} />],
              ["Promoted from", <MemoryLink key="pf" id={d.promotedFrom} />],
              ["Promoted to", <MemoryLink key="pt" id={d.promotedTo} />],
            ]}
          />
        </section>
        <section aria-labelledby="labels-title">
          <h3 id="labels-title">Keys and labels</h3>
          <h4>Keys</h4>
          <KeyLinks keys={d.keys} />
          <h4>Tags</h4>
          <TagList tags={d.tags} label="Tags" />
          <h4>Aliases</h4>
          <TagList tags={d.aliases} label="Aliases" />
          <h4>Entities</h4>
          <TagList tags={d.entities.map((e) => `${e.text} (${e.type})`)} label="Entities" />
        </section>
      </div>
      <div class="columns">
        <section aria-labelledby="links-title">
          <h3 id="links-title">Links</h3>
          <LinkList refs={read.links} empty="It links to nothing visible." />
          <h3>Backlinks</h3>
          <LinkList refs={read.backlinks} empty="Nothing visible links to it." />
        </section>
        <section aria-labelledby="episode-title">
          <h3 id="episode-title">Episode neighbours</h3>
          <Facts
            rows={[
              [
                "Before",
                read.neighbours?.previous ? (
                  <MemoryLink id={read.neighbours.previous.id} label={read.neighbours.previous.title} />
                ) : (
                  "—"
                ),
              ],
              [
                "After",
                read.neighbours?.next ? (
                  <MemoryLink id={read.neighbours.next.id} label={read.neighbours.next.title} />
                ) : (
                  "—"
                ),
              ],
            ]}
          />
          {isAdmin(principal) ? (
            <p>
              <a href={href(["events"], { stream: `memory-${d.id}` })}>Its events in the log</a>
            </p>
          ) : null}
        </section>
      </div>
      <section aria-labelledby="history-title">
        <h3 id="history-title">
          History ({history.versions.length} {history.versions.length === 1 ? "version" : "versions"})
        </h3>
        <History history={history} />
      </section>
    </article>
  );
}

export function MemoryPage({ id }: { id: string }) {
  const { api } = useConsole();
  const { result, reload } = useLoad(async () => {
    const read = { consistency: "strong" };
    const [memory, history] = await Promise.all([
      api.get<GetMemoryReply>(`/v1/memories/${encodeURIComponent(id)}`, read),
      api.get<HistoryReply>(`/v1/memories/${encodeURIComponent(id)}/history`, read),
    ]);
    return { memory, history };
  }, [id]);
  return (
    <Page title="Memory">
      <p class="back">
        <a href={href(["memories"])}>‹ Memories</a>
      </p>
      {result.state === "loading" ? <LoadingRows rows={1} kind="block" /> : null}
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "ok" ? <Details read={result.data.memory} history={result.data.history} /> : null}
    </Page>
  );
}

import type { MemoryDocument, SearchExplanation } from "@cairn/contracts";
import { href } from "../router.ts";
import { Explanation } from "./explanation.tsx";
import { Badge, num, Time } from "./format.tsx";

const statusTone: Record<string, string> = {
  active: "ok",
  pending: "warn",
  promoted: "ok",
  completed: "muted",
  rejected: "bad",
  deleted: "bad",
  archived: "muted",
  superseded: "muted",
};

export function MemoryBadges({ document }: { document: MemoryDocument }) {
  return (
    <span class="badges">
      <Badge>{document.tier}</Badge>
      <Badge tone={statusTone[document.status]}>{document.status}</Badge>
      <Badge>{document.kind}</Badge>
      <Badge>{document.scope}</Badge>
    </span>
  );
}

/** One memory in a list: its title (the link to it), its labels, a line of its content. */
export function MemoryRow({
  document,
  score,
  explanation,
}: {
  document: MemoryDocument;
  score?: number;
  explanation?: SearchExplanation | undefined;
}) {
  return (
    <li class="row memory-row">
      <div class="row-head">
        <a class="row-title" href={href(["memories", document.id])}>
          {document.title || document.slot}
        </a>
        {score === undefined ? null : <span class="score">score {num(score)}</span>}
      </div>
      <div class="row-meta">
        <code class="slot">{document.slot}</code>
        <MemoryBadges document={document} />
        <span class="muted">
          by {document.agent} · <Time iso={document.updatedAt} />
        </span>
      </div>
      <p class="row-snippet">{document.content}</p>
      {explanation ? <Explanation explanation={explanation} /> : null}
    </li>
  );
}

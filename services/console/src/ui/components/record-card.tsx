// What the inbox and handoff cards share: the record's head and content, the form that edits
// its text at the version shown (the server refuses if it moved meanwhile), the one-line note
// an action carries, and the card's buttons.
import type { Kind, MemoryDocument } from "@cairn/contracts";
import { useState } from "preact/hooks";
import { href } from "../router.ts";
import { vocabulary } from "../vocabulary.ts";
import { Time } from "./format.tsx";
import { MemoryBadges } from "./memory-row.tsx";

export function RecordHead({ document: d }: { document: MemoryDocument }) {
  return (
    <>
      <div class="row-head">
        <a class="row-title" href={href(["memories", d.id])}>
          {d.title || d.slot}
        </a>
        <span class="muted">v{d.version}</span>
      </div>
      <div class="row-meta">
        <code class="slot">{d.slot}</code>
        <MemoryBadges document={d} />
        <span class="muted">
          by {d.agent} · <Time iso={d.updatedAt} />
        </span>
      </div>
      <div class="content card-content">{d.content}</div>
    </>
  );
}

export type TextChanges = { title: string; content: string; kind: Kind; tags: string[] };

export function EditForm({
  document: d,
  busy,
  submitLabels,
  onSubmit,
  onCancel,
}: {
  document: MemoryDocument;
  busy: boolean;
  /** One submit button per label; the handler is told which was pressed. */
  submitLabels: string[];
  onSubmit: (changes: TextChanges, label: string) => void;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(d.title);
  const [content, setContent] = useState(d.content);
  const [kind, setKind] = useState<Kind>(d.kind);
  const [tags, setTags] = useState(d.tags.join(", "));
  const idFor = (field: string) => `edit-${d.id}-${field}`;
  const changes = (): TextChanges => ({
    title,
    content,
    kind,
    tags: tags
      .split(",")
      .map((t) => t.trim())
      .filter(Boolean),
  });
  return (
    <form
      class="edit-form"
      onSubmit={(event) => {
        event.preventDefault();
        const submitter = (event as SubmitEvent).submitter as HTMLButtonElement | null;
        onSubmit(changes(), submitter?.value ?? submitLabels[0] ?? "");
      }}
    >
      <label for={idFor("title")}>Title</label>
      <input id={idFor("title")} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      <label for={idFor("content")}>Content</label>
      <textarea
        id={idFor("content")}
        rows={6}
        value={content}
        onInput={(e) => setContent(e.currentTarget.value)}
      />
      <div class="form-row">
        <label class="field">
          <span>Kind</span>
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind)}>
            {vocabulary.kinds.map((k) => (
              <option key={k} value={k}>
                {k}
              </option>
            ))}
          </select>
        </label>
        <label class="field">
          <span>Tags</span>
          <input value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </label>
      </div>
      <div class="actions">
        {submitLabels.map((label) => (
          <button key={label} type="submit" value={label} disabled={busy}>
            {label}
          </button>
        ))}
        <button type="button" class="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/**
 * A one-line note sent with an action at the version shown (why a proposal is rejected, what
 * a handoff achieved): a label, the field, the action's button and Cancel.
 */
export function NoteForm({
  id,
  label,
  submitLabel,
  danger = false,
  busy,
  onSubmit,
  onCancel,
}: {
  id: string;
  label: string;
  submitLabel: string;
  danger?: boolean;
  busy: boolean;
  /** The note as typed, trimmed; null when left empty. */
  onSubmit: (note: string | null) => void;
  onCancel: () => void;
}) {
  const [note, setNote] = useState("");
  return (
    <form
      class="inline-form"
      onSubmit={(event) => {
        event.preventDefault();
        onSubmit(note.trim() || null);
      }}
    >
      <label for={id}>{label}</label>
      <input id={id} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      <div class="actions">
        <button type="submit" class={danger ? "danger" : undefined} disabled={busy}>
          {submitLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export type CardAction = { label: string; onClick: () => void; primary?: boolean };

/** A card's buttons, disabled while one of its actions runs; the first primary one stands out. */
export function ActionBar({ actions, busy }: { actions: CardAction[]; busy: boolean }) {
  return (
    <div class="actions">
      {actions.map((a) => (
        <button
          key={a.label}
          type="button"
          class={a.primary ? undefined : "secondary"}
          disabled={busy}
          onClick={a.onClick}
        >
          {a.label}
        </button>
      ))}
    </div>
  );
}

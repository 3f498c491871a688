// Handoffs: work in progress left for whoever comes next; record progress or close one, at the
// version on screen.
import type { MemoryDocument } from "@cairn/contracts";
import { useState } from "preact/hooks";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { ActionBar, EditForm, NoteForm, RecordHead } from "../components/record-card.tsx";
import { type ListHooks, RecordList } from "../components/record-list.tsx";
import { useConsole } from "../console-context.ts";
import type { Route } from "../router.ts";
import { useAction } from "../use-action.ts";

function HandoffCard({ document: d, list }: { document: MemoryDocument; list: ListHooks }) {
  const { api } = useConsole();
  const action = useAction();
  const [mode, setMode] = useState<"view" | "edit" | "complete">("view");
  const path = `/v1/handoffs/${d.id}`;
  const name = d.title || d.slot;
  const done = (message: string) => {
    setMode("view");
    list.changed({ message });
  };
  return (
    <article aria-label={name}>
      <RecordHead document={d} />
      {mode === "edit" ? (
        <EditForm
          document={d}
          busy={action.busy}
          submitLabels={["Save progress"]}
          onCancel={() => setMode("view")}
          onSubmit={(changes) =>
            action.run(async () => {
              await api.request("PATCH", path, { ifMatch: d.version, body: changes });
              done(`Saved “${changes.title || d.slot}”.`);
            })
          }
        />
      ) : null}
      {mode === "complete" ? (
        <NoteForm
          id={`complete-${d.id}`}
          label="What was done?"
          submitLabel="Complete"
          busy={action.busy}
          onCancel={() => setMode("view")}
          onSubmit={(summary) =>
            action.run(async () => {
              await api.request("POST", `${path}/complete`, { ifMatch: d.version, body: { summary } });
              done(`Completed “${name}”.`);
            })
          }
        />
      ) : null}
      {mode === "view" && d.status === "active" ? (
        <ActionBar
          busy={action.busy}
          actions={[
            { label: "Record progress", onClick: () => setMode("edit") },
            { label: "Complete…", primary: true, onClick: () => setMode("complete") },
          ]}
        />
      ) : null}
      {action.problem ? (
        <ProblemMessage problem={action.problem} onRetry={list.reload} retryLabel="Reload" />
      ) : null}
    </article>
  );
}

export function HandoffsPage({ route }: { route: Route }) {
  return (
    <Page title="Handoffs">
      <RecordList
        section="handoffs"
        path="/v1/handoffs"
        route={route}
        noun={["handoff", "handoffs"]}
        statuses={[
          { value: "active", label: "Open" },
          { value: "completed", label: "Completed" },
        ]}
        card={(d, list) => <HandoffCard document={d} list={list} />}
      />
    </Page>
  );
}

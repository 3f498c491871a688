// The inbox: proposals waiting for review, with promote, reject and edit. Each change is sent
// at the version on screen (`If-Match`); whether the key may make it is the server's answer,
// shown as it came when it refuses.
import type { MemoryDocument, WriteResult } from "@cairn/contracts";
import { useState } from "preact/hooks";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { ActionBar, EditForm, NoteForm, RecordHead, type TextChanges } from "../components/record-card.tsx";
import { type ListHooks, type Notice, RecordList } from "../components/record-list.tsx";
import { useConsole } from "../console-context.ts";
import { href, type Route } from "../router.ts";
import { useAction } from "../use-action.ts";

const saveLabel = "Save";
const saveAndPromoteLabel = "Save and promote";

function ProposalCard({ document: d, list }: { document: MemoryDocument; list: ListHooks }) {
  const { api } = useConsole();
  const action = useAction();
  const [mode, setMode] = useState<"view" | "edit" | "reject">("view");
  const path = `/v1/proposals/${d.id}`;
  const name = d.title || d.slot;
  const done = (notice: Notice) => {
    setMode("view");
    list.changed(notice);
  };
  const promote = (changes?: TextChanges) =>
    action.run(async () => {
      const { data } = await api.request<WriteResult>("POST", `${path}/promote`, {
        ifMatch: d.version,
        body: changes ? { changes } : {},
      });
      done({
        message: `Promoted “${name}”.`,
        link: { href: href(["memories", data.id]), label: "Open the memory" },
      });
    });
  const pending = d.status === "pending";
  return (
    <article aria-label={name}>
      <RecordHead document={d} />
      {mode === "edit" ? (
        <EditForm
          document={d}
          busy={action.busy}
          submitLabels={[saveLabel, saveAndPromoteLabel]}
          onCancel={() => setMode("view")}
          onSubmit={(changes, label) => {
            if (label === saveAndPromoteLabel) {
              promote(changes);
              return;
            }
            action.run(async () => {
              await api.request("PATCH", path, { ifMatch: d.version, body: changes });
              done({ message: `Saved “${changes.title || d.slot}”.` });
            });
          }}
        />
      ) : null}
      {mode === "reject" ? (
        <NoteForm
          id={`reject-${d.id}`}
          label="Why reject it?"
          submitLabel="Reject"
          danger
          busy={action.busy}
          onCancel={() => setMode("view")}
          onSubmit={(reason) =>
            action.run(async () => {
              await api.request("POST", `${path}/reject`, { ifMatch: d.version, body: { reason } });
              done({ message: `Rejected “${name}”.` });
            })
          }
        />
      ) : null}
      {mode === "view" && pending ? (
        <ActionBar
          busy={action.busy}
          actions={[
            { label: "Promote", primary: true, onClick: () => promote() },
            { label: "Edit", onClick: () => setMode("edit") },
            { label: "Reject…", onClick: () => setMode("reject") },
          ]}
        />
      ) : null}
      {action.problem ? (
        <ProblemMessage problem={action.problem} onRetry={list.reload} retryLabel="Reload" />
      ) : null}
    </article>
  );
}

export function InboxPage({ route }: { route: Route }) {
  return (
    <Page title="Inbox">
      <RecordList
        section="inbox"
        path="/v1/proposals"
        route={route}
        noun={["proposal", "proposals"]}
        statuses={[
          { value: "pending", label: "Waiting" },
          { value: "promoted", label: "Promoted" },
          { value: "rejected", label: "Rejected" },
        ]}
        card={(d, list) => <ProposalCard document={d} list={list} />}
      />
    </Page>
  );
}

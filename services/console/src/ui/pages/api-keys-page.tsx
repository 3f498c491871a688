// API keys (admins, their own tenant): the keys as listed (never the keys themselves), a new
// key shown once, and revocation after a confirmation.
import type { ApiKeyRecord, CreatedApiKey, Role } from "@cairn/contracts";
import { useState } from "preact/hooks";
import { Badge, Time } from "../components/format.tsx";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { Pager, pageOf, pageParam } from "../components/pager.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { href, type Route } from "../router.ts";
import { useAction } from "../use-action.ts";
import { useLoad } from "../use-load.ts";
import { vocabulary } from "../vocabulary.ts";

function CreateKey({ onCreated }: { onCreated: () => void }) {
  const { api, announce } = useConsole();
  const action = useAction();
  const [agent, setAgent] = useState("");
  const [role, setRole] = useState<Role>("agent");
  const [primary, setPrimary] = useState(false);
  const [label, setLabel] = useState("");
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  return (
    <section aria-labelledby="create-key-title">
      <h2 id="create-key-title">Create a key</h2>
      <form
        class="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          action.run(async () => {
            const { data } = await api.request<CreatedApiKey>("POST", "/v1/api-keys", {
              body: { agent: agent.trim(), role, primary, label: label.trim() || null },
            });
            setCreated(data);
            setAgent("");
            setLabel("");
            announce(`Created a key for ${data.record.agent}. It is shown once.`);
            onCreated();
          });
        }}
      >
        <div class="form-row">
          <label class="field">
            <span>Agent</span>
            <input required value={agent} onInput={(e) => setAgent(e.currentTarget.value)} />
          </label>
          <label class="field">
            <span>Role</span>
            <select value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
              {vocabulary.roles.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label class="field">
            <span>Label</span>
            <input value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
          </label>
        </div>
        <label class="check">
          <input type="checkbox" checked={primary} onChange={(e) => setPrimary(e.currentTarget.checked)} />
          Primary: sees every agent's private memories in the tenant
        </label>
        <div class="actions">
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </div>
      </form>
      {action.problem ? <ProblemMessage problem={action.problem} /> : null}
      {created ? (
        <div class="notice created-key" role="status">
          <p>
            The key of <strong>{created.record.agent}</strong> ({created.record.role}). Copy it now: it is not
            shown again.
          </p>
          <input
            class="secret"
            readOnly
            aria-label="The new key"
            value={created.key}
            onFocus={(e) => e.currentTarget.select()}
          />
          <div class="actions">
            <button
              type="button"
              class="secondary"
              onClick={() => navigator.clipboard?.writeText(created.key).then(() => announce("Copied."))}
            >
              Copy
            </button>
            <button type="button" class="secondary" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      ) : null}
    </section>
  );
}

function KeyRow({ record: k, onRevoked }: { record: ApiKeyRecord; onRevoked: () => void }) {
  const { api, announce, principal } = useConsole();
  const action = useAction();
  const [confirming, setConfirming] = useState(false);
  return (
    <tr>
      <td>
        <code>{k.keyPrefix}…</code>
      </td>
      <td>
        {k.agent}
        {k.label ? <div class="muted">{k.label}</div> : null}
      </td>
      <td>
        {k.role}
        {k.primary ? " · primary" : ""}
      </td>
      <td>
        <Time iso={k.createdAt} />
      </td>
      <td>
        {k.revokedAt ? (
          <Badge tone="muted">
            revoked <Time iso={k.revokedAt} />
          </Badge>
        ) : confirming ? (
          <span class="actions">
            <button
              type="button"
              class="danger"
              disabled={action.busy}
              onClick={() =>
                action.run(async () => {
                  await api.request("DELETE", `/v1/api-keys/${k.id}`);
                  announce(`Revoked the key ${k.keyPrefix}.`);
                  setConfirming(false);
                  onRevoked();
                })
              }
            >
              Revoke {k.agent === principal.agent ? "(this may be your own key)" : ""}
            </button>
            <button type="button" class="secondary" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        ) : (
          <button type="button" class="secondary" onClick={() => setConfirming(true)}>
            Revoke…
          </button>
        )}
        {action.problem ? <ProblemMessage problem={action.problem} /> : null}
      </td>
    </tr>
  );
}

export function ApiKeysPage({ route }: { route: Route }) {
  const { api } = useConsole();
  const includeRevoked = route.query.get("revoked") === "true";
  const page = pageParam(route.query.get("page"));
  const { result, reload } = useLoad(
    () => api.get<{ keys: ApiKeyRecord[] }>("/v1/api-keys", { includeRevoked: includeRevoked || undefined }),
    [includeRevoked],
  );
  const keys = result.state === "ok" ? result.data.keys : null;
  const shown = keys ? pageOf(keys, page) : null;
  return (
    <Page title="API keys">
      <CreateKey onCreated={reload} />
      <h2>Keys of the tenant</h2>
      <nav class="tabs" aria-label="Which keys">
        <a href={href(["api-keys"])} aria-current={includeRevoked ? undefined : "page"}>
          Working
        </a>
        <a href={href(["api-keys"], { revoked: true })} aria-current={includeRevoked ? "page" : undefined}>
          With revoked
        </a>
      </nav>
      <Pager
        page={page}
        pages={shown?.pages ?? 1}
        hrefOf={(p) => href(["api-keys"], { revoked: includeRevoked || undefined, page: p })}
        summary={keys ? `${keys.length} keys` : "Loading…"}
      />
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {result.state === "loading" ? <LoadingRows rows={4} /> : null}
      {shown ? (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Agent</th>
                <th scope="col">Role</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {shown.items.map((k) => (
                <KeyRow key={k.id} record={k} onRevoked={reload} />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}

// Tenant settings (admins): the settings as JSON with their version, changed by sending the
// edited fields back (`PATCH /v1/settings`, at the version read).
import { useEffect, useState } from "preact/hooks";
import { versionOfEtag } from "../api-client.ts";
import { LoadingRows } from "../components/loading-rows.tsx";
import { Page } from "../components/page.tsx";
import { ProblemMessage } from "../components/problem-message.tsx";
import { useConsole } from "../console-context.ts";
import { useAction } from "../use-action.ts";
import { useLoad } from "../use-load.ts";

export function SettingsPage() {
  const { api, announce } = useConsole();
  const { result, reload } = useLoad(() => api.request<unknown>("GET", "/v1/settings"), []);
  const [text, setText] = useState("");
  const [invalid, setInvalid] = useState<string | null>(null);
  const action = useAction();
  const loaded = result.state === "ok" ? result.data : null;
  useEffect(() => {
    if (loaded) setText(JSON.stringify(loaded.data, null, 2));
  }, [loaded]);
  return (
    <Page title="Settings">
      {result.state === "loading" ? <LoadingRows rows={1} kind="block" /> : null}
      {result.state === "error" ? <ProblemMessage problem={result.problem} onRetry={reload} /> : null}
      {loaded ? (
        <form
          class="edit-form"
          onSubmit={(event) => {
            event.preventDefault();
            let body: unknown;
            try {
              body = JSON.parse(text);
              setInvalid(null);
            } catch (error) {
              setInvalid(error instanceof Error ? error.message : "not JSON");
              return;
            }
            const version = versionOfEtag(loaded.etag);
            action.run(async () => {
              await api.request("PATCH", "/v1/settings", {
                body,
                ...(version !== undefined ? { ifMatch: version } : {}),
              });
              announce("Settings saved.");
              reload();
            });
          }}
        >
          <p class="muted" id="settings-version">
            Version {versionOfEtag(loaded.etag) ?? 0}. Settings not listed take their defaults; each one you
            save replaces that setting as a whole, and a change made by someone else since this version is
            refused (reload, then save again).
          </p>
          <label for="settings-json">The tenant's settings (JSON)</label>
          <textarea
            id="settings-json"
            class="code-editor"
            rows={20}
            spellcheck={false}
            value={text}
            onInput={(e) => setText(e.currentTarget.value)}
          />
          {invalid ? (
            <p class="problem-detail" role="alert">
              Not valid JSON: {invalid}
            </p>
          ) : null}
          <div class="actions">
            <button type="submit" disabled={action.busy}>
              Save
            </button>
            <button type="button" class="secondary" onClick={reload}>
              Reload
            </button>
          </div>
          {action.problem ? <ProblemMessage problem={action.problem} /> : null}
        </form>
      ) : null}
    </Page>
  );
}

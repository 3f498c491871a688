import { useEffect, useRef, useState } from "preact/hooks";
import { type Problem, problemOf } from "../api-client.ts";
import { ProblemMessage } from "../components/problem-message.tsx";
import { type Session, signIn } from "../session.ts";

/**
 * Sign-in with an API key. The form is never submitted by the browser (the page's policy
 * allows no form action): the key goes only into the Authorization header of API calls.
 */
export function SignInPage({
  problem,
  onSignedIn,
  onUnauthenticated,
}: {
  problem: Problem | null;
  onSignedIn: (session: Session, keep: boolean) => void;
  onUnauthenticated: (problem: Problem) => void;
}) {
  const [apiKey, setApiKey] = useState("");
  const [keep, setKeep] = useState(false);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<Problem | null>(null);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => {
    field.current?.focus();
    document.title = "Sign in · Cairn console";
  }, []);
  const shown = failure ?? problem;
  return (
    <main class="sign-in">
      <form
        class="sign-in-form"
        method="post"
        aria-labelledby="sign-in-title"
        onSubmit={async (event) => {
          event.preventDefault();
          if (busy) return;
          setBusy(true);
          setFailure(null);
          try {
            const session = await signIn(apiKey.trim(), onUnauthenticated);
            setApiKey("");
            onSignedIn(session, keep);
          } catch (error) {
            setFailure(problemOf(error));
            setBusy(false);
          }
        }}
      >
        <h1 id="sign-in-title">Cairn console</h1>
        <p class="muted">
          Sign in with an API key. The console sees what the key sees and can do what it may; the key stays in
          this tab.
        </p>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          ref={field}
          type="password"
          name="api-key"
          autoComplete="off"
          spellcheck={false}
          required
          placeholder="cairn_…"
          value={apiKey}
          onInput={(e) => setApiKey(e.currentTarget.value)}
        />
        <label class="check">
          <input type="checkbox" checked={keep} onChange={(e) => setKeep(e.currentTarget.checked)} />
          Stay signed in when this tab reloads (the key is kept in this tab's session storage until it closes)
        </label>
        <button type="submit" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
        <div class="sign-in-problem">{shown ? <ProblemMessage problem={shown} /> : null}</div>
      </form>
    </main>
  );
}

// The console: sign-in, then the shell (header, navigation, the page the hash names). Which
// pages are listed follows the key's role; what a page can do is what the server allows.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useMemo, useState } from "preact/hooks";
import type { Problem } from "./api-client.ts";
import { Page } from "./components/page.tsx";
import { ConsoleContext, type ConsoleState, isAdmin, useConsole } from "./console-context.ts";
import { ApiKeysPage } from "./pages/api-keys-page.tsx";
import { EventsPage } from "./pages/events-page.tsx";
import { HandoffsPage } from "./pages/handoffs-page.tsx";
import { InboxPage } from "./pages/inbox-page.tsx";
import { KeyPage, KeysPage } from "./pages/keys-page.tsx";
import { MaintenancePage } from "./pages/maintenance-page.tsx";
import { MemoriesPage } from "./pages/memories-page.tsx";
import { MemoryPage } from "./pages/memory-page.tsx";
import { SettingsPage } from "./pages/settings-page.tsx";
import { SignInPage } from "./pages/sign-in-page.tsx";
import { StatusPage } from "./pages/status-page.tsx";
import { href, type Route, useRoute } from "./router.ts";
import { rememberedKey, rememberKey, type Session, signIn } from "./session.ts";

type Section = {
  id: string;
  label: string;
  /** Listed, and opened, only for admin keys. */
  admin?: boolean;
  /** Listed only when the server answers the route (tenant settings). */
  needsSettings?: boolean;
  render: (route: Route) => ComponentChildren;
};

const sections: Section[] = [
  {
    id: "memories",
    label: "Memories",
    render: (route) => {
      const id = route.segments[1];
      return id ? <MemoryPage id={id} /> : <MemoriesPage route={route} />;
    },
  },
  { id: "inbox", label: "Inbox", render: (route) => <InboxPage route={route} /> },
  { id: "handoffs", label: "Handoffs", render: (route) => <HandoffsPage route={route} /> },
  {
    id: "keys",
    label: "Key graph",
    render: (route) => {
      const key = route.segments[1];
      return key ? <KeyPage label={key} /> : <KeysPage route={route} />;
    },
  },
  { id: "events", label: "Events", admin: true, render: (route) => <EventsPage route={route} /> },
  { id: "status", label: "Status", render: () => <StatusPage /> },
  { id: "maintenance", label: "Maintenance", admin: true, render: () => <MaintenancePage /> },
  { id: "api-keys", label: "API keys", admin: true, render: (route) => <ApiKeysPage route={route} /> },
  { id: "settings", label: "Settings", admin: true, needsSettings: true, render: () => <SettingsPage /> },
];

function AdminOnly({ label }: { label: string }) {
  const { principal } = useConsole();
  return (
    <Page title={label}>
      <div class="problem" role="alert" data-code="admin_only">
        <p class="problem-title">
          <strong>This page is for admins</strong>
        </p>
        <p class="problem-detail">
          The key you signed in with is {principal.agent}'s, with the role {principal.role}. Only an admin key
          of tenant {principal.tenant} opens {label}.
        </p>
        <p class="problem-hint">Sign in with an admin key to see it.</p>
      </div>
    </Page>
  );
}

function NotFound() {
  return (
    <Page title="Not found">
      <p>
        The console has no such page. <a href={href(["memories"])}>Go to the memories</a>.
      </p>
    </Page>
  );
}

function Shell({ announcement }: { announcement: string }) {
  const state = useConsole();
  const route = useRoute();
  const current = route.segments[0] ?? "memories";
  const listed = sections.filter(
    (s) => (!s.admin || isAdmin(state.principal)) && (!s.needsSettings || state.settingsAvailable),
  );
  const section = sections.find((s) => s.id === current);
  let content: ComponentChildren;
  if (!section) content = <NotFound />;
  else if (section.admin && !isAdmin(state.principal)) content = <AdminOnly label={section.label} />;
  else if (section.needsSettings && !state.settingsAvailable) content = <NotFound />;
  else content = section.render(route);
  const { principal } = state;
  return (
    <div class="shell">
      <button type="button" class="skip-link" onClick={skipToMain}>
        Skip to content
      </button>
      <header class="topbar">
        <a class="brand" href={href(["memories"])}>
          Cairn console
        </a>
        <span class="who" title="The key you signed in with">
          <span class="who-agent">{principal.agent}</span>
          <span class="muted">
            {" "}
            · {principal.tenant} · {principal.role}
            {principal.primary ? " · primary" : ""}
          </span>
        </span>
        <button type="button" class="secondary" onClick={state.signOut}>
          Sign out
        </button>
      </header>
      <nav class="sidebar" aria-label="Console">
        <ul>
          {listed.map((s) => (
            <li key={s.id}>
              <a href={href([s.id])} aria-current={s.id === current ? "page" : undefined}>
                {s.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        {content}
      </main>
      <div class="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </div>
    </div>
  );
}

/** The skip link moves the focus; an anchor would change the hash, which is the router's. */
function skipToMain() {
  const heading = document.getElementById("page-title") ?? document.getElementById("main");
  heading?.focus();
}

export function App() {
  const [session, setSession] = useState<Session | null>(null);
  const [restoring, setRestoring] = useState(() => rememberedKey() !== null);
  const [signedOutBecause, setSignedOutBecause] = useState<Problem | null>(null);
  const [settingsAvailable, setSettingsAvailable] = useState(false);
  const [announcement, setAnnouncement] = useState("");

  const signOut = useCallback((problem?: Problem) => {
    rememberKey(null);
    setSession(null);
    setSettingsAvailable(false);
    setSignedOutBecause(problem ?? null);
  }, []);
  const onUnauthenticated = useCallback((problem: Problem) => signOut(problem), [signOut]);

  // A key kept for this tab (the person asked for it) signs in again after a reload.
  useEffect(() => {
    const kept = rememberedKey();
    if (kept === null) return;
    signIn(kept, onUnauthenticated).then(
      (s) => {
        setSession(s);
        setRestoring(false);
      },
      (error: unknown) => {
        rememberKey(null);
        setRestoring(false);
        setSignedOutBecause((error as { problem?: Problem }).problem ?? null);
      },
    );
  }, [onUnauthenticated]);

  // The settings page is shown only when the route is there and answers this key.
  useEffect(() => {
    if (!session || !isAdmin(session.principal)) return;
    let live = true;
    session.api.request("GET", "/v1/settings").then(
      () => live && setSettingsAvailable(true),
      () => live && setSettingsAvailable(false),
    );
    return () => {
      live = false;
    };
  }, [session]);

  const state = useMemo<ConsoleState | null>(
    () =>
      session && {
        api: session.api,
        principal: session.principal,
        settingsAvailable,
        signOut: () => signOut(),
        announce: (message) => setAnnouncement(message),
      },
    [session, settingsAvailable, signOut],
  );

  if (restoring) {
    return (
      <main class="sign-in" aria-busy="true">
        <p>Signing in…</p>
      </main>
    );
  }
  if (!state) {
    return (
      <SignInPage
        problem={signedOutBecause}
        onSignedIn={(s, keep) => {
          rememberKey(keep ? s.apiKey : null);
          setSignedOutBecause(null);
          setSession(s);
          if (!window.location.hash) window.location.hash = href(["memories"]);
        }}
        onUnauthenticated={onUnauthenticated}
      />
    );
  }
  return (
    <ConsoleContext.Provider value={state}>
      <Shell announcement={announcement} />
    </ConsoleContext.Provider>
  );
}

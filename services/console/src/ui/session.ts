// The signed-in API key. It lives in this module's memory, and in the tab's sessionStorage
// only when the person asks to stay signed in across reloads; never in a URL, a cookie or a
// log line. Closing the tab (or signing out) forgets it.
import type { Principal } from "@cairn/contracts";
import { type Api, createApi, type Problem } from "./api-client.ts";

const storageName = "cairn-console-api-key";

export type Session = { api: Api; principal: Principal; apiKey: string };

export function rememberedKey(): string | null {
  try {
    return window.sessionStorage.getItem(storageName);
  } catch {
    return null;
  }
}

export function rememberKey(apiKey: string | null): void {
  try {
    if (apiKey === null) window.sessionStorage.removeItem(storageName);
    else window.sessionStorage.setItem(storageName, apiKey);
  } catch {
    // Storage refused (private mode, policy): the key stays in memory only.
  }
}

/** Checks a key with `GET /v1/status`, which answers who the key is. */
export async function signIn(
  apiKey: string,
  onUnauthenticated: (problem: Problem) => void,
): Promise<Session> {
  const api = createApi(apiKey, onUnauthenticated);
  const status = await api.get<{ principal: Principal }>("/v1/status");
  return { api, principal: status.principal, apiKey };
}

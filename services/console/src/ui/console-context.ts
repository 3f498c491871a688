// What every page reads: the signed-in key's API and principal, whether the optional tenant
// settings route answers, and a way to say what just happened.
import type { Principal } from "@cairn/contracts";
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import type { Api } from "./api-client.ts";

export type ConsoleState = {
  api: Api;
  principal: Principal;
  /** `GET /v1/settings` answered for this key (the settings page is shown only then). */
  settingsAvailable: boolean;
  signOut: () => void;
  /** A short message for the live region (read out by screen readers). */
  announce: (message: string) => void;
};

export const ConsoleContext = createContext<ConsoleState | null>(null);

export function useConsole(): ConsoleState {
  const state = useContext(ConsoleContext);
  if (!state) throw new Error("useConsole outside a signed-in console");
  return state;
}

export const isAdmin = (principal: Principal) => principal.role === "admin";

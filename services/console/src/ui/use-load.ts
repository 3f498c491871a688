// Loading data for a page: a state the page renders (its loading state takes the same room as
// the data, so nothing moves when the data arrives), with a reload. While a newer request
// runs, the last answer stays on screen (`busy` says so), and an answer to an older request
// never overwrites a newer one.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { type Problem, problemOf } from "./api-client.ts";

export type Load<T> = { state: "loading" } | { state: "ok"; data: T } | { state: "error"; problem: Problem };

export type Loaded<T> = { result: Load<T>; busy: boolean; reload: () => void };

export function useLoad<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [result, setResult] = useState<Load<T>>({ state: "loading" });
  const [busy, setBusy] = useState(true);
  const [round, setRound] = useState(0);
  const latest = useRef(0);
  // The caller names what the load depends on.
  useEffect(() => {
    const ticket = ++latest.current;
    setBusy(true);
    const settle = (next: Load<T>) => {
      if (ticket !== latest.current) return;
      setResult(next);
      setBusy(false);
    };
    load().then(
      (data) => settle({ state: "ok", data }),
      (error: unknown) => settle({ state: "error", problem: problemOf(error) }),
    );
  }, [...deps, round]);
  // A page that goes away must not be updated by its last answer.
  useEffect(
    () => () => {
      latest.current = -1;
    },
    [],
  );
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { result, busy, reload };
}

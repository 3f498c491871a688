// A change a person starts (promote, reject, revoke, run): one at a time, and its refusal kept
// to show next to the control that caused it, worded as the server worded it.
import { useState } from "preact/hooks";
import { type Problem, problemOf } from "./api-client.ts";

export type Action = {
  busy: boolean;
  problem: Problem | null;
  /** Runs `work` unless another change is running; its error becomes `problem`. */
  run: <T>(work: () => Promise<T>) => Promise<T | undefined>;
  clear: () => void;
};

export function useAction(): Action {
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  return {
    busy,
    problem,
    run: async (work) => {
      if (busy) return undefined;
      setBusy(true);
      setProblem(null);
      try {
        return await work();
      } catch (error) {
        setProblem(problemOf(error));
        return undefined;
      } finally {
        setBusy(false);
      }
    },
    clear: () => setProblem(null),
  };
}

import { CairnError } from "../errors.ts";

/** The CairnError `fn` refuses with; fails when `fn` refuses nothing (other errors pass through). */
export function refusalOf(fn: () => unknown): CairnError {
  try {
    fn();
  } catch (error) {
    if (error instanceof CairnError) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

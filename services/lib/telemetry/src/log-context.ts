import { AsyncLocalStorage } from "node:async_hooks";

/** Who a piece of work is for: added to every log line written while it runs. */
export type LogFields = { tenant?: string; agent?: string };

const fields = new AsyncLocalStorage<LogFields>();

/** Runs `fn` with `tenant` and `agent` on the log lines written inside it (nested: merged). */
export function withLogFields<T>(extra: LogFields, fn: () => T): T {
  const merged: LogFields = { ...fields.getStore() };
  if (extra.tenant !== undefined) merged.tenant = extra.tenant;
  if (extra.agent !== undefined) merged.agent = extra.agent;
  return fields.run(merged, fn);
}

export function currentLogFields(): LogFields {
  return fields.getStore() ?? {};
}

// The words the console offers in its filters and forms, taken from the contracts at build time
// and written into the bundle: the browser code never imports the contracts package (its
// schemas would come along), and no list is kept twice.
import { kinds, maintenanceJobs, roles, scopes, statuses, tiers } from "@cairn/contracts";

export const consoleVocabulary = { tiers, statuses, kinds, scopes, roles, maintenanceJobs } as const;

export type ConsoleVocabulary = typeof consoleVocabulary;

/** The global name the bundle reads the vocabulary from (an esbuild `define`). */
export const vocabularyGlobal = "CAIRN_VOCABULARY";

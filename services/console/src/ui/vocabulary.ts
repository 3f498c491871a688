// The contracts' words (tiers, statuses, kinds, scopes, roles, maintenance jobs), written into
// the bundle by the build (see ../console-vocabulary.ts).
import type { ConsoleVocabulary } from "../console-vocabulary.ts";

declare const CAIRN_VOCABULARY: ConsoleVocabulary;

export const vocabulary: ConsoleVocabulary = CAIRN_VOCABULARY;

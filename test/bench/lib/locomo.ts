// Loads LoCoMo-format conversations (../shared/bench/README.md): every turn becomes one
// memory ("<speaker>: <text>" plus the photo caption), every question of categories 1-4
// one query with its evidence turns.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";

export type LocomoTurn = {
  /** `D<session>:<turn>`, unique within a conversation. */
  diaId: string;
  speaker: string;
  content: string;
  /** The session's date and time, ISO 8601. */
  at: string;
};

export type LocomoQuestion = { question: string; category: number; evidence: string[] };

export type LocomoConversation = { name: string; turns: LocomoTurn[]; questions: LocomoQuestion[] };

const months = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** "1:56 pm on 8 May, 2023" → ISO time (UTC); an unreadable date gives undefined. */
export function parseLocomoDate(text: string): string | undefined {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return undefined;
  const month = months.indexOf((m[5] ?? "").toLowerCase());
  if (month < 0) return undefined;
  let hour = Number(m[1]) % 12;
  if ((m[3] ?? "").toLowerCase() === "pm") hour += 12;
  return new Date(Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]))).toISOString();
}

type RawTurn = { speaker?: unknown; dia_id?: unknown; text?: unknown; blip_caption?: unknown };
type RawQuestion = { question?: unknown; category?: unknown; evidence?: unknown };

/** Turn content as the README prescribes: speaker, text, and the shared photo's caption. */
export function turnContent(turn: { speaker: string; text: string; caption?: string | undefined }): string {
  const caption = turn.caption ? ` [shares a photo: ${turn.caption}]` : "";
  return `${turn.speaker}: ${turn.text}${caption}`;
}

export function parseConversation(name: string, raw: Record<string, unknown>): LocomoConversation {
  // The file is either the conversation itself or `{ conversation, qa }` as in locomo10.json.
  const conversation = (
    typeof raw.conversation === "object" && raw.conversation !== null ? raw.conversation : raw
  ) as Record<string, unknown>;
  const turns: LocomoTurn[] = [];
  const sessions = Object.keys(conversation)
    .map((key) => /^session_(\d+)$/.exec(key))
    .filter((m): m is RegExpExecArray => m !== null && Array.isArray(conversation[m[0]]))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
  for (const session of sessions) {
    const dateText = conversation[`session_${session}_date_time`];
    const at =
      (typeof dateText === "string" ? parseLocomoDate(dateText) : undefined) ?? "2000-01-01T00:00:00Z";
    for (const turn of conversation[`session_${session}`] as RawTurn[]) {
      if (typeof turn.text !== "string" || typeof turn.dia_id !== "string") continue;
      const speaker = typeof turn.speaker === "string" ? turn.speaker : "unknown";
      const caption = typeof turn.blip_caption === "string" ? turn.blip_caption : undefined;
      turns.push({
        diaId: turn.dia_id,
        speaker,
        content: turnContent({ speaker, text: turn.text, caption }),
        at,
      });
    }
  }
  const qa = (Array.isArray(raw.qa) ? raw.qa : []) as RawQuestion[];
  const questions = qa
    .filter(
      (q): q is { question: string; category: number; evidence: unknown } =>
        typeof q.question === "string" && typeof q.category === "number",
    )
    .filter((q) => q.category >= 1 && q.category <= 4)
    .map((q) => ({
      question: q.question,
      category: q.category,
      // Some evidence entries hold several ids ("D8:6; D9:17"); split them.
      evidence: (Array.isArray(q.evidence) ? q.evidence : [])
        .flatMap((e) => (typeof e === "string" ? e.split(/[;,\s]+/) : []))
        .filter((e) => /^D\d+:\d+$/.test(e)),
    }))
    .filter((q) => q.evidence.length > 0);
  return { name, turns, questions };
}

/** A file, or every `.json` file of a folder, in name order. */
export function loadLocomo(path: string): LocomoConversation[] {
  const files = statSync(path).isDirectory()
    ? readdirSync(path)
        .filter((f) => f.endsWith(".json"))
        .sort()
        .map((f) => join(path, f))
    : [path];
  return files.flatMap((file) => {
    const raw = JSON.parse(readFileSync(file, "utf8")) as unknown;
    // locomo10.json holds an array of samples; each becomes its own conversation.
    if (Array.isArray(raw)) return raw.map((r, i) => parseConversation(`${basename(file)}#${i}`, r));
    return [parseConversation(basename(file, ".json"), raw as Record<string, unknown>)];
  });
}

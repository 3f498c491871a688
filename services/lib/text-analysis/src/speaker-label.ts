// Who speaks in a memory written as a line of a transcript: "Caroline: I went to a support
// group yesterday", "Dr. Smith: …", "User: …", "张伟：…". What a speaker says in the first
// person is about them, so a question that names them is about such lines more than about
// lines that merely mention the name ("Thanks, Caroline!").

/** One to three capitalised words, or one to four Han characters, then a colon and the line. */
const labelled =
  /^\s*(\p{Lu}[\p{L}\p{M}.'’-]*(?:\s+\p{Lu}[\p{L}\p{M}.'’-]*){0,2}|\p{Script=Han}{1,4})\s*[:：]\s*\S/u;
const maxLabelChars = 40;

/** The speaker a transcript line starts with, as written; null when the text is not such a line. */
export function speakerLabel(content: string): string | null {
  const match = labelled.exec(content.slice(0, maxLabelChars + 8));
  const label = match?.[1]?.trim();
  return label && label.length <= maxLabelChars ? label : null;
}

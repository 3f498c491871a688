// Entities extracted at ingest, stored with the memory so every projection sees the same
// ones: people, places and organisations (compromise for English, jieba's part-of-speech
// tags for Chinese), products (a gazetteer of common software and devices), tickers
// ($AAPL), code identifiers (camelCase, snake_case, `calls()`, paths, `backticked`), URLs.
import type { Entity } from "@cairn/contracts";
import { Jieba } from "@node-rs/jieba";
import { dict } from "@node-rs/jieba/dict.js";
import nlp from "compromise";
import { titleFromContent } from "./normalise.ts";

/** compromise is linear but not cheap; names are nearly always in the first few thousand characters. */
const nlpMaxChars = 3000;
const maxEntities = 64;

// compromise runs every step of its pipeline (its "hooks") on each document. Two of them,
// noun/verb chunking and the typeahead lexicon, serve other methods than people(), places()
// and organizations(): without them the entities found in thousands of conversation turns
// are the same, and a document costs about a third less. A third, the post-tagger's sweep of
// match rules, costs four times what the other steps cost together; what it adds to names
// (joining a surname to a first name) is done below for the names found (`withSurname`),
// without what it got wrong (a greeting joined to the name: "Thanks Nate"). On the 5,882
// turns of ten LoCoMo conversations, 120 turns differ, nearly all for the better.
const unusedSteps = new Set(["chunks", "typeahead", "postTagger"]);
type World = {
  hooks: string[];
  model: {
    one: {
      lexicon: Record<string, string | string[] | undefined>;
      tagSet: Record<string, { parents?: string[] } | undefined>;
    };
  };
};
const world = (nlp as unknown as { world(): World }).world();
world.hooks.splice(0, world.hooks.length, ...world.hooks.filter((step) => !unusedSteps.has(step)));

// Tagging is most of what compromise costs, and in English a person, place or organisation
// is written with a capital letter. So only the neighbourhood of a capitalised word is tagged:
// the word and two words on each side (what compromise's rules look at), within its sentence.
// The pronoun "I" is no name, a product of the gazetteer is found without tagging, and a
// sentence's first word is no name when compromise's lexicon knows it as something else ("Thanks for that", not "Paris is lovely"). On conversation turns
// this finds the same names as tagging every word, without some lower-case false ones ("my
// buddy", "a cork board"), at a fraction of the cost.
const nameTags = new Set(["Person", "Place", "Organization", "ProperNoun"]);
const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const capitalised = /^[^\p{L}\p{N}]*\p{Lu}/u;
const pronounI = /^[^\p{L}]*I(?:['’][a-z]{1,2})?[^\p{L}]*$/u;
/** Words on each side of a capitalised word that are tagged with it. */
const context = 2;

function mayNameSomething(word: string): boolean {
  const entry = word
    .replace(/^[^\p{L}]+|[^\p{L}]+$/gu, "")
    .replace(/['’]s$/u, "")
    .toLowerCase();
  const lexicon = world.model.one.lexicon;
  const tags = Object.hasOwn(lexicon, entry) ? lexicon[entry] : undefined;
  if (tags === undefined) return true;
  return (Array.isArray(tags) ? tags : [tags]).some((tag) => {
    const known = world.model.one.tagSet[tag];
    return nameTags.has(tag) || (known?.parents ?? []).some((parent) => nameTags.has(parent));
  });
}

/** A software or device name of the gazetteer below: found without tagging, no name around it. */
function isKnownProduct(word: string): boolean {
  return productCanonical.has(word.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "").toLowerCase());
}

/**
 * The parts of a text that can hold a name, as written (line breaks kept): each capitalised
 * word with its neighbours, the parts set apart so that compromise never joins two into one.
 */
export function nameBearingText(text: string): string {
  const words: { start: number; end: number }[] = [];
  const anchors: number[] = [];
  for (const { segment, index } of sentenceSegmenter.segment(text)) {
    let first = true;
    for (const m of segment.matchAll(/\S+/gu)) {
      const word = m[0];
      if (
        capitalised.test(word) &&
        !pronounI.test(word) &&
        !isKnownProduct(word) &&
        (!first || mayNameSomething(word))
      ) {
        anchors.push(words.length);
      }
      words.push({ start: index + m.index, end: index + m.index + word.length });
      first = false;
    }
  }
  const keep = new Array<boolean>(words.length).fill(false);
  for (const at of anchors) {
    for (let j = Math.max(0, at - context); j <= Math.min(words.length - 1, at + context); j += 1)
      keep[j] = true;
  }
  const parts: string[] = [];
  let from = -1;
  for (const [i, word] of words.entries()) {
    if (keep[i] && from < 0) from = word.start;
    const last = i === words.length - 1 || !keep[i + 1];
    if (keep[i] && last) {
      parts.push(text.slice(from, word.end));
      from = -1;
    }
  }
  return parts.join(" … ");
}

let jieba: Jieba | undefined;
function segmenter(): Jieba {
  jieba ??= Jieba.withDict(dict);
  return jieba;
}

const products = [
  "PostgreSQL",
  "Postgres",
  "MySQL",
  "MariaDB",
  "SQLite",
  "MongoDB",
  "Redis",
  "RediSearch",
  "Elasticsearch",
  "OpenSearch",
  "Kafka",
  "RabbitMQ",
  "NATS",
  "JetStream",
  "Docker",
  "Kubernetes",
  "Terraform",
  "Ansible",
  "Nginx",
  "Grafana",
  "Prometheus",
  "Jaeger",
  "OpenTelemetry",
  "Node.js",
  "Deno",
  "Bun",
  "TypeScript",
  "JavaScript",
  "Python",
  "Rust",
  "Golang",
  "Java",
  "Kotlin",
  "Swift",
  "React",
  "Vue",
  "Angular",
  "Svelte",
  "Next.js",
  "Vite",
  "Webpack",
  "pnpm",
  "npm",
  "Yarn",
  "vitest",
  "Jest",
  "Biome",
  "ESLint",
  "Prettier",
  "Git",
  "GitHub",
  "GitLab",
  "Jira",
  "Confluence",
  "Slack",
  "Notion",
  "Figma",
  "VS Code",
  "Cursor",
  "Claude Code",
  "Claude",
  "ChatGPT",
  "Codex",
  "Copilot",
  "Linux",
  "Windows",
  "macOS",
  "iOS",
  "Android",
  "iPhone",
  "iPad",
  "MacBook",
  "AWS",
  "S3",
  "EC2",
  "Lambda",
  "Azure",
  "GCP",
  "BigQuery",
  "Snowflake",
  "Databricks",
  "Spark",
  "Airflow",
  "dbt",
  "pgvector",
  "Kysely",
  "Prisma",
  "Zod",
  "Fastify",
  "Express",
  "Django",
  "Flask",
  "FastAPI",
  "Rails",
  "Spring",
];
const productPattern = new RegExp(
  `(?<![\\w.])(?:${products.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")})(?![\\w])`,
  "gi",
);
const productCanonical = new Map(products.map((p) => [p.toLowerCase(), p]));

const urlPattern = /\bhttps?:\/\/[^\s<>()[\]{}"'`]+/gi;
const tickerPattern = /(?<![\w$])\$[A-Z]{1,5}(?:\.[A-Z]{1,2})?(?![\w])/g;
const codePatterns = [
  /`([^`\n]{1,80})`/g, // backticked
  /(?<![\w.])[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*\(\)/g, // calls: foo(), a.b()
  /(?<![\w/.-])(?:\.{1,2}\/|\/|~\/)?(?:[\w.-]+\/)+[\w.-]+\.[A-Za-z0-9]{1,8}(?![\w/])/g, // paths with a file name
  /\b[a-z][a-z0-9]*(?:[A-Z][a-z0-9]*)+\b/g, // camelCase
  /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g, // snake_case
];
const hanPattern = /\p{Script=Han}/u;

function cleanName(text: string): string {
  return text
    .replace(/['’]s\b/gu, "")
    .replace(/^[\s"'“”‘’([{]+|[\s"'“”‘’.,;:!?)\]}\-–—]+$/gu, "")
    .trim();
}

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?]+$/u, "");
}

// compromise's people(), places() and organizations(), with their match patterns parsed once:
// compromise parses a pattern given as text on every call, and that was a third of what
// finding the names cost. The steps are compromise's own (its topics' find.js).
type Regs = unknown;
type NlpView = {
  match(regs: Regs): NlpView;
  splitAfter(regs: Regs | NlpView): NlpView;
  notIf(regs: Regs): NlpView;
  has(regs: Regs): boolean;
  after(regs: Regs): { found: boolean };
  filter(keep: (view: NlpView) => boolean): NlpView;
  out(format: "array"): string[];
};
const parseMatch = (pattern: string): Regs =>
  (nlp as unknown as { parseMatch(pattern: string): Regs }).parseMatch(pattern);
const patterns = {
  hasComma: parseMatch("@hasComma"),
  person: parseMatch("#Honorific+? #Person+"),
  possessive: parseMatch("#Possessive"),
  hisOrHer: parseMatch("(his|her)"),
  place: parseMatch("(#Place|#Address)+"),
  continent: parseMatch("(asia|africa|europe|america)$"),
  cityOrRegion: parseMatch("(#City|#Region|#ProperNoun)$"),
  countryOrRegion: parseMatch("^(#Country|#Region)"),
  organisation: parseMatch("#Organization+"),
};

function people(doc: NlpView): NlpView {
  const m = doc.splitAfter(patterns.hasComma).match(patterns.person);
  // "Spencer's King"
  return m.splitAfter(m.match(patterns.possessive).notIf(patterns.hisOrHer));
}

function places(doc: NlpView): NlpView {
  const m = doc.match(patterns.place);
  // Split at every comma but the one of "Paris, France".
  const splits = m.match(patterns.hasComma).filter((c) => {
    if (c.has(patterns.continent)) return true;
    return !(c.has(patterns.cityOrRegion) && c.after(patterns.countryOrRegion).found);
  });
  return m.splitAfter(splits);
}

/** A capitalised word or an initial ("R."), after the name it may continue. */
const nextNamePart = /^ +(\p{Lu}\.|\p{Lu}[\p{Ll}\p{Lu}-]*(?!\p{L}))/u;

const honorific = /^(?:Dr|Mr|Mrs|Ms|Mx|Prof|Sr|Jr|St)\.$/u;

/** Plain nouns: capitalised after a first name, most are a surname ("Potter", "Stone"). */
const plainNounTags = new Set(["Noun", "Singular"]);

function mayContinueName(word: string): boolean {
  if (pronounI.test(word) || isKnownProduct(word)) return false;
  if (mayNameSomething(word)) return true;
  const tags = world.model.one.lexicon[word.toLowerCase()];
  return (Array.isArray(tags) ? tags : [tags]).every((tag) => tag !== undefined && plainNounTags.has(tag));
}

/**
 * A person's name with the capitalised words that follow it where it is written: "Harry" in
 * "Harry Potter", "George" in "George R. R. Martin". compromise's post-tagging rules join
 * them, but at twice the cost of all its other steps together, and they also join a greeting
 * to the name ("Thanks Nate"). A word the lexicon knows as something else than a name or a
 * plain noun ("Great", "Monday", "I'm") is not joined.
 */
function withSurname(name: string, text: string): string {
  const at = text.indexOf(name);
  // A name that ends its sentence or clause ("Nate!", "Tim:") goes no further; a title does.
  if (at < 0 || !(/\p{L}$/u.test(name) || honorific.test(name))) return name;
  let end = at + name.length;
  for (;;) {
    const m = nextNamePart.exec(text.slice(end));
    if (!m) break;
    const part = m[1] as string;
    const initial = part.endsWith(".");
    if (!initial && !mayContinueName(part)) break;
    end += m[0].length;
    // An initial ends a sentence as well as a name part: only a name part goes on after it.
    if (initial && !nextNamePart.test(text.slice(end))) {
      end -= 1;
      break;
    }
  }
  return text.slice(at, end);
}

/**
 * Whether a title says something its content does not. A title made from the content (its
 * first line, cut short: the usual one when the writer gave none) or found in it as written
 * names nobody the content does not name; read again it would only cost as much as the
 * content's start, and yield a name cut off by the title's end ("Alice…").
 */
function titleOfItsOwn(title: string, content: string): boolean {
  return title !== "" && title !== titleFromContent(content) && !content.includes(title);
}

/** Entities found in a memory's title and content, each text once per type, at most 64. */
export function extractEntities(content: string, title = ""): Entity[] {
  const text = titleOfItsOwn(title, content) ? `${title}\n${content}` : content;
  const out: Entity[] = [];
  const seen = new Set<string>();
  const add = (type: Entity["type"], raw: string) => {
    const value = type === "url" || type === "code" ? raw.trim() : cleanName(raw);
    if (value.length < 2 || value.length > 200) return;
    const key = `${type}:${value.toLowerCase()}`;
    if (seen.has(key) || out.length >= maxEntities) return;
    seen.add(key);
    out.push({ text: value, type });
  };

  const urls = [...text.matchAll(urlPattern)].map((m) => trimUrl(m[0]));
  for (const url of urls) add("url", url);
  // URLs are not also paths or names.
  const withoutUrls = text.replace(urlPattern, " ");

  for (const m of withoutUrls.matchAll(tickerPattern)) add("ticker", m[0]);

  const nameBearing = nameBearingText(withoutUrls.slice(0, nlpMaxChars));
  if (nameBearing.length > 0) {
    const doc = nlp(nameBearing) as unknown as NlpView;
    // An English name has a capitalised word ("the city of Nuuk"; "my buddy" is nobody's name).
    const named = (type: Entity["type"], name: string) => {
      if (/(?:^|[^\p{L}])\p{Lu}/u.test(name)) add(type, name);
    };
    for (const name of people(doc).out("array")) named("person", withSurname(name, nameBearing));
    for (const name of places(doc).out("array")) named("place", name);
    for (const name of doc.match(patterns.organisation).out("array")) named("organisation", name);
  }

  for (const m of withoutUrls.matchAll(productPattern)) {
    add("product", productCanonical.get(m[0].toLowerCase()) ?? m[0]);
  }

  for (const pattern of codePatterns) {
    for (const m of withoutUrls.matchAll(pattern)) add("code", m[1] ?? m[0]);
  }

  if (hanPattern.test(text)) {
    for (const { word, tag } of segmenter().tag(text.slice(0, nlpMaxChars * 2), true)) {
      if (!hanPattern.test(word)) continue;
      if (tag === "nr") add("person", word);
      else if (tag === "ns") add("place", word);
      else if (tag === "nt") add("organisation", word);
      else if (tag === "nz" || (tag === "n" && word.length >= 2)) add("term", word);
    }
  }
  return out;
}

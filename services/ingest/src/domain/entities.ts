// Entities extracted at ingest, stored with the memory so every projection sees the same
// ones: people, places and organisations (compromise for English, jieba's part-of-speech
// tags for Chinese), products (a gazetteer of common software and devices), tickers
// ($AAPL), code identifiers (camelCase, snake_case, `calls()`, paths, `backticked`), URLs.
import type { Entity } from "@cairn/contracts";
import { Jieba } from "@node-rs/jieba";
import { dict } from "@node-rs/jieba/dict.js";
import nlp from "compromise";

/** compromise is linear but not cheap; names are nearly always in the first few thousand characters. */
const nlpMaxChars = 3000;
const maxEntities = 64;

// compromise runs every step of its pipeline (its "hooks") on each document. Two of them,
// noun/verb chunking and the typeahead lexicon, serve other methods than people(), places()
// and organizations(): without them the entities found in thousands of conversation turns
// are the same, and a document costs about a third less.
const unusedSteps = new Set(["chunks", "typeahead"]);
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
// is written with a capital letter. So only sentences that can hold one are tagged: those with
// a capitalised word past their first (the pronoun "I" aside), or whose capitalised first word
// is unknown to compromise's lexicon or known there as a name, place or organisation ("Paris
// is lovely", not "Thanks for that"). The others cannot yield a name, and skipping them halves
// the cost on conversational text.
const nameTags = new Set(["Person", "Place", "Organization", "ProperNoun"]);
const sentenceSegmenter = new Intl.Segmenter("en", { granularity: "sentence" });
const capitalisedWord = /(?<![\p{L}\p{N}\p{M}])\p{Lu}[\p{L}\p{M}\p{N}'’.-]*/gu;
const pronounI = /^I(?:['’][a-z]{1,2})?$/u;

function mayNameSomething(word: string): boolean {
  const entry = word.toLowerCase().replace(/['’]s$/u, "");
  const lexicon = world.model.one.lexicon;
  const tags = Object.hasOwn(lexicon, entry) ? lexicon[entry] : undefined;
  if (tags === undefined) return true;
  return (Array.isArray(tags) ? tags : [tags]).some((tag) => {
    const known = world.model.one.tagSet[tag];
    return nameTags.has(tag) || (known?.parents ?? []).some((parent) => nameTags.has(parent));
  });
}

function canHoldName(sentence: string): boolean {
  const firstLetter = sentence.search(/\p{L}/u);
  for (const m of sentence.matchAll(capitalisedWord)) {
    const word = m[0].replace(/[.'’-]+$/u, "");
    if (pronounI.test(word)) continue;
    if (m.index !== firstLetter || mayNameSomething(word)) return true;
  }
  return false;
}

/** The sentences of a text that can hold a name, in order. */
export function nameBearingText(text: string): string {
  const kept: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) if (canHoldName(segment)) kept.push(segment);
  return kept.join("");
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
    .replace(/^[\s"'“”‘’([{]+|[\s"'“”‘’.,;:!?)\]}]+$/gu, "")
    .trim();
}

function trimUrl(url: string): string {
  return url.replace(/[.,;:!?]+$/u, "");
}

/** Entities found in a memory's title and content, each text once per type, at most 64. */
export function extractEntities(content: string, title = ""): Entity[] {
  const text = title ? `${title}\n${content}` : content;
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

  const doc = nlp(nameBearingText(withoutUrls.slice(0, nlpMaxChars)));
  for (const name of doc.people().out("array") as string[]) add("person", name);
  for (const name of doc.places().out("array") as string[]) add("place", name);
  for (const name of doc.organizations().out("array") as string[]) add("organisation", name);

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

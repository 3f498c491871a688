import { randomUUID } from "node:crypto";
import type { Entity } from "@cairn/contracts";
import { eventLine, memoryRecord } from "@cairn/memory-model/testing";
import { describe, expect, it } from "vitest";
import { evolveMemoryCard, type MemoryCard } from "../projections/memory-card/memory-card.ts";
import { fitQuery } from "./fit-query.ts";
import { understandQuery } from "./understand-query.ts";

const now = new Date("2026-07-10T09:00:00Z");
const line = eventLine();

/** A card as ranking's projection makes it from a recorded memory. */
function card(content: string, options: { validFrom?: string; entities?: Entity[] } = {}): MemoryCard {
  const id = randomUUID();
  return evolveMemoryCard(
    undefined,
    line.stream(id, { tenant: "t", actor: "a" }).next(
      "memory.recorded",
      memoryRecord({
        id,
        agent: "a",
        content,
        validFrom: options.validFrom ?? null,
        entities: options.entities,
      }),
      "2026-07-01T00:00:00.000Z",
    ),
  );
}

function fits(query: string, cards: MemoryCard[]) {
  const byId = new Map(cards.map((c) => [c.id, c]));
  const fitted = fitQuery(
    understandQuery(query, now),
    cards.map((c) => c.id),
    byId,
  );
  return cards.map((c) => fitted.get(c.id));
}

describe("fitQuery", () => {
  it("fits a line by the speaker a question names, not one that only addresses them", () => {
    const [own, addressed, other] = fits("What did Caroline research?", [
      card("Caroline: Researching adoption agencies — it's been a dream to have a family."),
      card("Melanie: Wow, Caroline! Adoption agencies sound great.", {
        entities: [{ text: "Caroline", type: "person" }],
      }),
      card("Melanie: I signed up for a pottery class."),
    ]);
    expect(own).toMatchObject({ names: ["Caroline"], fit: 1, answers: null, inTime: null });
    expect(addressed).toMatchObject({ names: [], fit: 0 });
    expect(other).toMatchObject({ names: [], fit: 0 });
  });

  it("fits a memory that is no transcript line by its entities", () => {
    const [about, unrelated] = fits("what does alice smith own", [
      card("Run migrations before deploying; Alice Smith owns them.", {
        entities: [{ text: "Alice Smith", type: "person" }],
      }),
      card("Bob owns the staging cluster.", { entities: [{ text: "Bob", type: "person" }] }),
    ]);
    expect(about).toMatchObject({ names: ["Alice Smith"], fit: 1 });
    expect(unrelated).toMatchObject({ names: [], fit: 0 });
  });

  it("answers a when-question with a memory that names a time, and counts each cue once", () => {
    const [timed, untimed, otherSpeaker] = fits("When did Caroline go to the support group?", [
      card("Caroline: I went to a support group yesterday.", { validFrom: "2023-05-08T13:56:00Z" }),
      card("Caroline: The support group was so powerful.", { validFrom: "2023-05-08T13:56:00Z" }),
      card("Melanie: Last week I ran a charity race.", { validFrom: "2023-05-25T13:56:00Z" }),
    ]);
    expect(timed).toMatchObject({ asks: "time", answers: true, names: ["Caroline"], fit: 1 });
    expect(untimed).toMatchObject({ answers: false, fit: 0.5 });
    expect(otherSpeaker).toMatchObject({ answers: true, names: [], fit: 0.5 });
  });

  it("fits a memory whose time, or a time it names, is the one the question names", () => {
    const [june, namesJune, july] = fits("When did Melanie go camping in June?", [
      card("Melanie: It was an awesome time, we explored nature.", { validFrom: "2023-06-27T10:00:00Z" }),
      card("Melanie: We always go camping in June.", { validFrom: "2023-08-01T10:00:00Z" }),
      card("Melanie: We went camping with the kids.", { validFrom: "2023-07-17T10:00:00Z" }),
    ]);
    expect(june).toMatchObject({ inTime: true, times: [{ text: "June", anyYear: true }] });
    expect(namesJune).toMatchObject({ inTime: true });
    expect(july).toMatchObject({ inTime: false });
    expect(june?.fit).toBeGreaterThan(july?.fit ?? 1);

    // A relative time in the question is resolved against now, a memory's against its own time.
    const [lastWeek, earlier] = fits("what did we deploy last week", [
      card("We deployed the new search index.", { validFrom: "2026-07-02T10:00:00Z" }),
      card("We deployed the new ranking service.", { validFrom: "2026-05-02T10:00:00Z" }),
    ]);
    expect(lastWeek).toMatchObject({ inTime: true, fit: 1 });
    expect(earlier).toMatchObject({ inTime: false, fit: 0 });
  });

  it("counts a cue only when some candidate meets it", () => {
    // Nobody names a place: the where-question's fit rests on the name alone.
    const [jon, gina] = fits("Where did Jon go last week?", [
      card("Jon: Took a short trip to clear my mind.", { validFrom: "2023-01-01T10:00:00Z" }),
      card("Gina: Wow, nice!", { validFrom: "2023-01-01T10:00:00Z" }),
    ]);
    expect(jon).toMatchObject({ asks: "place", answers: false, inTime: false, fit: 1 });
    expect(gina).toMatchObject({ fit: 0 });
  });

  it("fits nothing when the question says nothing beyond its words, or a card is missing", () => {
    const cards = [card("We use pnpm as the package manager."), card("Deploys go through the canary.")];
    expect(fits("package manager", cards).map((f) => f?.fit)).toEqual([0, 0]);
    const fitted = fitQuery(understandQuery("When did Caroline go?", now), ["missing"], new Map());
    expect(fitted.get("missing")).toMatchObject({ fit: 0, names: [] });
  });
});

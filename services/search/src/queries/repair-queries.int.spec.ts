// The requests maintenance's doctor and repair use: the inventory of each read model (no
// text), and re-projecting documents a read model lost or fell behind on.

import { call } from "@cairn/bus";
import { searchRpcs } from "@cairn/contracts";
import { describe, expect } from "vitest";
import { principals, searchTest as test } from "../testing/search-test.ts";

const { boss } = principals;

describe("inventory and re-projection", () => {
  test("a document deleted behind the service's back shows as missing and is re-projected", async ({
    search,
    inspect,
  }) => {
    const a = await search.log.record({ content: "alpha memory about tulips", slot: "tulip-notes" });
    const b = await search.log.record({ content: "beta memory about roses", slot: "rose-notes" });
    await search.log.change(b.id, "memory.revised", { content: "beta memory about roses, revised" });
    await search.settle();
    const timeout = { timeoutMs: 10_000 };
    const lexical = await call(search.client, searchRpcs.inventory, { projection: "lexical" }, timeout);
    expect(lexical.documents.map((d) => [d.id, d.version, d.hasText]).sort()).toEqual(
      [
        [a.id, 1, true],
        [b.id, 2, true],
      ].sort(),
    );
    expect(JSON.stringify(lexical)).not.toContain("tulips");
    const vector = await call(
      search.client,
      searchRpcs.inventory,
      { projection: "vector", tenant: "acme", ids: [a.id] },
      timeout,
    );
    expect(vector.documents.map((d) => d.id)).toEqual([a.id]);

    // Behind the service's back: the lexical document of a and the vector row of b vanish.
    const g = (await inspect.generations()).lexical as number;
    await inspect.models.redis.del(inspect.models.lexicalStore.docKey(g, a.id));
    const table = (await inspect.models.vector.servingGeneration()).tableName;
    await search.pool.query(`delete from cairn_search.${table} where memory_id = $1`, [b.id]);
    const missing = await call(search.client, searchRpcs.inventory, { projection: "lexical" }, timeout);
    expect(missing.documents.map((d) => d.id)).toEqual([b.id]);
    await expect(search.get({ principal: boss, id: a.id })).rejects.toMatchObject({ code: "not_found" });

    const reply = await call(search.client, searchRpcs.reproject, { ids: [a.id, b.id] }, timeout);
    const byName = Object.fromEntries(reply.projections.map((p) => [p.name, p]));
    expect(byName.lexical?.reprojected).toEqual([{ id: a.id, version: 1 }]);
    expect(byName.lexical?.unchanged).toEqual([b.id]);
    expect(byName.vector?.reprojected).toEqual([{ id: b.id, version: 2 }]);
    expect((await search.get({ principal: boss, id: a.id })).document.content).toBe(
      "alpha memory about tulips",
    );
    expect((await inspect.vectorDocument(b.id))?.content).toBe("beta memory about roses, revised");

    // Live projection carries on from the repaired documents.
    await search.log.change(a.id, "memory.revised", { content: "alpha memory about tulips, revised" });
    await search.settle();
    expect((await inspect.lexicalDocument(a.id))?.version).toBe(2);
    const { rows } = await search.pool.query("select * from cairn_projections.dead_letters");
    expect(rows).toEqual([]);
  });
});

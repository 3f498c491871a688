// An append's event ids are looked up in the log (is it a replay?) by the unique index on
// `event_id`, with a plan that holds for every command.
//
// `cairn_append_unlocked` matched them with `event_id in (select … from jsonb_array_elements(…))`.
// Postgres cannot tell how many rows a jsonb function returns (it assumes 100 per call, so
// 10,000 ids here), and its plans for that lookup were slow to make and to run: on a log of
// 10,000 to 20,000 events, 3,000 appends of one event in one session took 3.0 to 4.2 s, and
// 0.6 to 1.1 s with the ids gathered into an array first and matched with `= any(ids)`. The
// function runs under the append lock, so this time is every writer's. Nothing else in the
// function changes; down() puts the old lookup back.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

type Lookup = { declare: string; assign: string; match: string };

/** By the index: the ids in an array, matched with `= any`. */
const byIndex: Lookup = {
  declare: "ids uuid[];",
  assign:
    "ids := array(select (e->>'eventId')::uuid from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e);",
  match: "c.event_id = any(ids)",
};

/** As released in 2026-12-02T0900_append-batch. */
const asBefore: Lookup = {
  declare: "",
  assign: "",
  match:
    "c.event_id in (select (e->>'eventId')::uuid from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e)",
};

function appendUnlocked(ids: Lookup) {
  return sql.raw(`
    create or replace function cairn_append_unlocked(p_appends jsonb)
    returns table (stream_id text, event_id uuid, version integer, event_position bigint, replayed boolean)
    language plpgsql
    security definer set search_path = pg_catalog, public, pg_temp
    as $fn$
    declare
      a jsonb;
      current_version integer;
      expected jsonb;
      total integer;
      existing integer;
      wanted text[];
      claimed text[];
      taken record;
      ${ids.declare}
    begin
      ${ids.assign}
      select count(*) into total
        from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e;
      select count(*) into existing
        from cairn_events c
       where ${ids.match};
      if existing > 0 then
        if existing <> total then
          raise exception 'some event ids of this append are already in the log, others are not'
            using errcode = 'CA003',
                  detail = (select json_build_object('eventIds', json_agg(c.event_id))::text
                              from cairn_events c
                             where ${ids.match});
        end if;
        return query
          select c.stream_id, c.event_id, c.version, c.position, true
            from cairn_events c
           where ${ids.match}
           order by c.position;
        return;
      end if;

      for a in select value from jsonb_array_elements(p_appends) loop
        select coalesce(max(c.version), 0) into current_version
          from cairn_events c where c.stream_id = a->>'streamId';
        expected := a->'expectedVersion';
        if (expected = '"no_stream"'::jsonb and current_version <> 0)
           or (jsonb_typeof(expected) = 'number' and current_version <> (expected #>> '{}')::integer) then
          raise exception 'stream % is at version %', a->>'streamId', current_version
            using errcode = 'CA001',
                  detail = json_build_object('streamId', a->>'streamId', 'expectedVersion', expected,
                                             'actualVersion', current_version)::text;
        end if;
        a := a || jsonb_build_object('currentVersion', current_version);
        p_appends := (select jsonb_agg(case when s->>'streamId' = a->>'streamId' then a else s end)
                        from jsonb_array_elements(p_appends) s);
      end loop;

      -- Releases first, so one append can move a key from one stream to another.
      delete from cairn_reservations r
       using jsonb_array_elements(p_appends) s, jsonb_array_elements_text(coalesce(s->'release', '[]')) k
       where r.key = k and r.stream_id = s->>'streamId';

      for a in select value from jsonb_array_elements(p_appends) where jsonb_array_length(coalesce(value->'claim', '[]')) > 0 loop
        wanted := array(select distinct jsonb_array_elements_text(a->'claim'));
        -- Waits for a concurrent claimer to finish, then sees its committed row.
        with c as (
          insert into cairn_reservations as r (key, stream_id)
          select k, a->>'streamId' from unnest(wanted) k
          on conflict (key) do update set stream_id = excluded.stream_id
           where r.stream_id = excluded.stream_id
          returning r.key
        )
        select array_agg(c.key) into claimed from c;
        if coalesce(array_length(claimed, 1), 0) < array_length(wanted, 1) then
          select r.key, r.stream_id into taken
            from cairn_reservations r
           where r.key = any(wanted) and r.key <> all(coalesce(claimed, '{}'))
           limit 1;
          raise exception 'reservation % is held by %', taken.key, taken.stream_id
            using errcode = 'CA002',
                  detail = json_build_object('key', taken.key, 'holderStreamId', taken.stream_id)::text;
        end if;
      end loop;

      return query
        with rows as (
          select (e.value->>'eventId')::uuid as event_id,
                 s.value->>'streamId' as stream_id,
                 s.value->>'streamType' as stream_type,
                 (s.value->>'currentVersion')::integer + e.ordinality::integer as version,
                 e.value->>'type' as type,
                 (e.value->>'schemaVersion')::integer as schema_version,
                 e.value->'data' as data,
                 s.value->'meta' as meta,
                 s.ordinality as stream_ord,
                 e.ordinality as event_ord
            from jsonb_array_elements(p_appends) with ordinality s
                 cross join lateral jsonb_array_elements(s.value->'events') with ordinality e
        ),
        inserted as (
          insert into cairn_events as c (event_id, stream_id, stream_type, version, type, schema_version, data, meta)
          select r.event_id, r.stream_id, r.stream_type, r.version, r.type, r.schema_version, r.data, r.meta
            from rows r
           order by r.stream_ord, r.event_ord
          returning c.stream_id, c.event_id, c.version, c.position
        )
        select i.stream_id, i.event_id, i.version, i.position, false from inserted i
        union all
        -- One row per stream with its version after the append (also for an append without events).
        select s.value->>'streamId', null::uuid,
               (s.value->>'currentVersion')::integer + jsonb_array_length(s.value->'events'), null::bigint, false
          from jsonb_array_elements(p_appends) s;
    end
    $fn$`);
}

export async function up(db: Db): Promise<void> {
  // `create or replace` keeps the function's owner and grants (only its owner may call it).
  await sql`${appendUnlocked(byIndex)}`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`${appendUnlocked(asBefore)}`.execute(db);
}

// An append keeps its streams' current versions in an array, by the stream's place in the
// append, instead of writing each into the append's jsonb: `cairn_append_unlocked` rebuilt the
// whole jsonb of the append (every event's data with it) once per stream, under the append
// lock. The events inserted, the rows answered and every check stay as they were.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";
import { up as appendEventIdsByIndex } from "./2026-12-04T0900_append-event-ids-by-index.ts";
import { up as appendLookupsByIndex } from "./2026-12-06T0900_append-lookups-by-index.ts";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  // `create or replace` keeps the function's owner and grants (only its owner may call it); its
  // settings are the ones given here, so sequential scans stay off inside it.
  await sql`
    create or replace function cairn_append_unlocked(p_appends jsonb)
    returns table (stream_id text, event_id uuid, version integer, event_position bigint, replayed boolean)
    language plpgsql
    security definer set search_path = pg_catalog, public, pg_temp
    set enable_seqscan = off
    as $fn$
    declare
      a jsonb;
      current_version integer;
      versions integer[] := '{}';
      expected jsonb;
      existing integer;
      wanted text[];
      claimed text[];
      taken record;
      ids uuid[];
    begin
      ids := array(select (e->>'eventId')::uuid from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e);
      select count(*) into existing
        from cairn_events c
       where c.event_id = any(ids);
      if existing > 0 then
        if existing <> cardinality(ids) then
          raise exception 'some event ids of this append are already in the log, others are not'
            using errcode = 'CA003',
                  detail = (select json_build_object('eventIds', json_agg(c.event_id))::text
                              from cairn_events c
                             where c.event_id = any(ids));
        end if;
        return query
          select c.stream_id, c.event_id, c.version, c.position, true
            from cairn_events c
           where c.event_id = any(ids)
           order by c.position;
        return;
      end if;

      -- Each stream's version before this append, by the stream's place in it.
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
        versions := versions || current_version;
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
                 versions[s.ordinality::integer] + e.ordinality::integer as version,
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
               versions[s.ordinality::integer] + jsonb_array_length(s.value->'events'), null::bigint, false
          from jsonb_array_elements(p_appends) with ordinality s;
    end
    $fn$`.execute(db);
}

export async function down(db: Db): Promise<void> {
  // The function as the two migrations before made it.
  await appendEventIdsByIndex(db);
  await appendLookupsByIndex(db);
}

// `cairn_append(appends jsonb)`: one append (to one or more streams) in a single call, so the
// lock that orders positions is held only while Postgres itself runs the checks and inserts,
// never across a network round trip or a busy client.
//
// Under the session lock `cairn_append` takes the transaction id, checks idempotency (every
// event id already in the log: the original rows are returned, nothing is written), each
// stream's expected version, releases and claims reservations, and inserts the events; then
// it unlocks. The caller's statement commits right after, outside the lock, so concurrent
// appends' commits (and fsyncs) overlap.
//
// Errors, with a JSON `detail`: CA001 version conflict {streamId, expectedVersion,
// actualVersion}; CA002 reservation taken {key, holderStreamId}; CA003 event ids partly in
// the log {eventIds}. A unique violation (23505) means a concurrent append committed first:
// the caller retries and the checks then see it.
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

export async function up(db: Db): Promise<void> {
  await sql`
    create function cairn_append(p_appends jsonb)
    returns table (stream_id text, event_id uuid, version integer, event_position bigint, replayed boolean)
    language plpgsql
    as $fn$
    declare
      lock_key constant bigint := ${sql.raw(String(0x4341_4952_4e01n))};
      a jsonb;
      current_version integer;
      expected jsonb;
      total integer;
      existing integer;
      wanted text[];
      claimed text[];
      taken record;
    begin
      perform pg_advisory_lock(lock_key);
      begin
        -- The transaction id is taken under the lock, before anything is written.
        perform pg_current_xact_id();

        select count(*) into total
          from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e;
        select count(*) into existing
          from cairn_events c
         where c.event_id in (select (e->>'eventId')::uuid
                                from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e);
        if existing > 0 then
          if existing <> total then
            raise exception 'some event ids of this append are already in the log, others are not'
              using errcode = 'CA003',
                    detail = (select json_build_object('eventIds', json_agg(c.event_id))::text
                                from cairn_events c
                               where c.event_id in (select (e->>'eventId')::uuid
                                                      from jsonb_array_elements(p_appends) s,
                                                           jsonb_array_elements(s->'events') e));
          end if;
          return query
            select c.stream_id, c.event_id, c.version, c.position, true
              from cairn_events c
             where c.event_id in (select (e->>'eventId')::uuid
                                    from jsonb_array_elements(p_appends) s, jsonb_array_elements(s->'events') e)
             order by c.position;
          perform pg_advisory_unlock(lock_key);
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
        perform pg_advisory_unlock(lock_key);
      exception when others then
        perform pg_advisory_unlock(lock_key);
        raise;
      end;
    end
    $fn$`.execute(db);
  await sql`grant execute on function cairn_append(jsonb) to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop function if exists cairn_append(jsonb)`.execute(db);
}

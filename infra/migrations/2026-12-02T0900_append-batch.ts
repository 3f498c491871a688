// Group commit: many commands' appends in one transaction, one commit, one WAL flush.
//
// The checks and inserts of an append move into `cairn_append_unlocked`, which only the
// owner may call (it relies on its caller holding the append lock). Two wrappers take the
// lock around it:
//
// - `cairn_append(appends jsonb)`: one append, as before (same result, same errors).
// - `cairn_append_batch(commands jsonb)`: a list of commands, each `{ appends, seals }`.
//   Under one hold of the lock (so position order and transaction order still agree), each
//   command runs in a subtransaction of its own: first its new seals (`cairn_memory_seals`,
//   a seal the command made for a memory that has none yet), then its append. A command
//   that fails (CA001 version conflict, CA002 reservation taken, CA003 event ids partly in
//   the log, CA004 the memory has a seal already, 23505 a concurrent commit came first)
//   leaves nothing behind and is answered by one row with its error code and detail; the
//   others go on. Every row names its command by `command_index` (1-based).
//
// Frozen in time: never edited once released; a change is a new migration.
import { type Kysely, sql } from "kysely";
import { up as createSingleAppend } from "./2026-11-30T0900_append-function.ts";
import { up as appendOnlyThroughFunction } from "./2026-11-30T0930_append-only-through-function.ts";

// biome-ignore lint/suspicious/noExplicitAny: migrations are frozen in time and typed loosely (kysely's advice)
type Db = Kysely<any>;

const lockKey = sql.raw(String(0x4341_4952_4e01n));

export async function up(db: Db): Promise<void> {
  await sql`
    create function cairn_append_unlocked(p_appends jsonb)
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
    begin
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
    $fn$`.execute(db);
  await sql`revoke execute on function cairn_append_unlocked(jsonb) from public`.execute(db);

  await sql`
    create or replace function cairn_append(p_appends jsonb)
    returns table (stream_id text, event_id uuid, version integer, event_position bigint, replayed boolean)
    language plpgsql
    security definer set search_path = pg_catalog, public, pg_temp
    as $fn$
    begin
      perform pg_advisory_lock(${lockKey});
      begin
        -- The transaction id is taken under the lock, before anything is written.
        perform pg_current_xact_id();
        return query select * from cairn_append_unlocked(p_appends);
        perform pg_advisory_unlock(${lockKey});
      exception when others then
        perform pg_advisory_unlock(${lockKey});
        raise;
      end;
    end
    $fn$`.execute(db);

  await sql`
    create function cairn_append_batch(p_commands jsonb)
    returns table (command_index integer, stream_id text, event_id uuid, version integer,
                   event_position bigint, replayed boolean, error_code text, error_detail text)
    language plpgsql
    security definer set search_path = pg_catalog, public, pg_temp
    as $fn$
    declare
      c record;
      s jsonb;
      wanted bytea;
      stored bytea;
      found_seal boolean;
      appended jsonb;
      failed_code text;
      failed_detail text;
    begin
      perform pg_advisory_lock(${lockKey});
      begin
        perform pg_current_xact_id();
        for c in select value, ordinality::integer as idx from jsonb_array_elements(p_commands) with ordinality loop
          begin
            for s in select value from jsonb_array_elements(coalesce(c.value->'seals', '[]')) loop
              wanted := decode(s->>'seal', 'base64');
              insert into cairn_memory_seals (memory_id, tenant, seal)
              values ((s->>'memoryId')::uuid, s->>'tenant', wanted)
              on conflict (memory_id) do nothing;
              select true, m.seal into found_seal, stored
                from cairn_memory_seals m where m.memory_id = (s->>'memoryId')::uuid;
              if stored is distinct from wanted then
                raise exception 'memory % has a seal already', s->>'memoryId'
                  using errcode = 'CA004',
                        detail = json_build_object('memoryId', s->>'memoryId', 'purged', stored is null)::text;
              end if;
            end loop;
            select coalesce(jsonb_agg(to_jsonb(r)), '[]'::jsonb) into appended
              from cairn_append_unlocked(c.value->'appends') r;
            return query
              select c.idx, x.stream_id, x.event_id, x.version, x.event_position, x.replayed, null::text, null::text
                from jsonb_to_recordset(appended)
                     as x(stream_id text, event_id uuid, version integer, event_position bigint, replayed boolean);
          exception when sqlstate 'CA001' or sqlstate 'CA002' or sqlstate 'CA003' or sqlstate 'CA004'
                         or unique_violation then
            get stacked diagnostics failed_code = returned_sqlstate, failed_detail = pg_exception_detail;
            return query select c.idx, null::text, null::uuid, null::integer, null::bigint, false,
                                failed_code, failed_detail;
          end;
        end loop;
        perform pg_advisory_unlock(${lockKey});
      exception when others then
        perform pg_advisory_unlock(${lockKey});
        raise;
      end;
    end
    $fn$`.execute(db);
  await sql`revoke execute on function cairn_append_batch(jsonb) from public`.execute(db);
  await sql`grant execute on function cairn_append_batch(jsonb) to cairn_app`.execute(db);
}

export async function down(db: Db): Promise<void> {
  await sql`drop function if exists cairn_append_batch(jsonb)`.execute(db);
  // cairn_append as the earlier migrations made it, with its own copy of the checks.
  await sql`drop function if exists cairn_append(jsonb)`.execute(db);
  await sql`drop function if exists cairn_append_unlocked(jsonb)`.execute(db);
  await createSingleAppend(db);
  await appendOnlyThroughFunction(db);
}

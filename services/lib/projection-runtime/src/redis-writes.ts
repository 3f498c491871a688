// The writes a Redis projection makes for one event, recorded as commands so that they run
// with the checkpoint in one compare-and-set script (see redis-generations.ts). The methods
// are those of ioredis a read-modify-write projection uses.
import type { RedisCommand } from "./redis-generations.ts";

type Value = string | number;

export class RedisWrites {
  readonly commands: RedisCommand[] = [];

  call(name: string, ...args: Value[]): this {
    this.commands.push([name, ...args]);
    return this;
  }
  set(key: string, value: Value) {
    return this.call("SET", key, value);
  }
  del(...keys: string[]) {
    return keys.length === 0 ? this : this.call("DEL", ...keys);
  }
  incrby(key: string, by: number) {
    return this.call("INCRBY", key, by);
  }
  hset(key: string, fieldOrObject: string | Record<string, Value>, value?: Value) {
    if (typeof fieldOrObject === "string") return this.call("HSET", key, fieldOrObject, value as Value);
    const flat = Object.entries(fieldOrObject).flat();
    return flat.length === 0 ? this : this.call("HSET", key, ...flat);
  }
  hsetnx(key: string, field: string, value: Value) {
    return this.call("HSETNX", key, field, value);
  }
  hdel(key: string, ...fields: string[]) {
    return fields.length === 0 ? this : this.call("HDEL", key, ...fields);
  }
  hincrby(key: string, field: string, by: number) {
    return this.call("HINCRBY", key, field, by);
  }
  zadd(key: string, ...args: Value[]) {
    return this.call("ZADD", key, ...args);
  }
  zincrby(key: string, by: number, member: string) {
    return this.call("ZINCRBY", key, by, member);
  }
  zrem(key: string, ...members: string[]) {
    return members.length === 0 ? this : this.call("ZREM", key, ...members);
  }
  zremrangebyscore(key: string, min: Value, max: Value) {
    return this.call("ZREMRANGEBYSCORE", key, min, max);
  }
  sadd(key: string, ...members: string[]) {
    return members.length === 0 ? this : this.call("SADD", key, ...members);
  }
  srem(key: string, ...members: string[]) {
    return members.length === 0 ? this : this.call("SREM", key, ...members);
  }
}

import { LUA_SERVER_NOW } from './client.js';

/*
 * Lua of the Redis KvStore. A key holds `<expiresAt>:<value>`: the expiry (epoch ms, caller's clock)
 * travels with the value, so "expired" is judged against the caller's `now` exactly as the contract
 * says. The Redis TTL (`PX`) only reclaims memory; an empty TTL argument means no TTL.
 */

/** ARGV: entry, expiresAt ('' = never), grace. `put` has no `now`: the TTL is measured on the server's clock. */
export const KV_PUT = `if ARGV[2] == '' then return redis.call('SET', KEYS[1], ARGV[1]) end
${LUA_SERVER_NOW}
local ttl = math.max(tonumber(ARGV[2]) - server_now, 0) + tonumber(ARGV[3])
return redis.call('SET', KEYS[1], ARGV[1], 'PX', string.format('%d', ttl))`;

/** ARGV: entry, now, ttl. Returns 1 when stored, 0 when a live entry is present. */
export const KV_PUT_IF_ABSENT = `local current = redis.call('GET', KEYS[1])
if current and tonumber(string.match(current, '^[^:]*')) > tonumber(ARGV[2]) then return 0 end
if ARGV[3] == '' then redis.call('SET', KEYS[1], ARGV[1]) else redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3]) end
return 1`;

/**
 * ARGV: by, expiresAt, now, ttl. A live entry keeps its expiry and TTL; an absent or expired one
 * restarts at 0. Returns the new value as a string, or nil when the live value is not an integer.
 */
export const KV_INCREMENT = `local current = redis.call('GET', KEYS[1])
if current then
  local at, value = string.match(current, '^([^:]*):(.*)$')
  if tonumber(at) > tonumber(ARGV[3]) then
    local n = tonumber(value)
    if not n or n ~= math.floor(n) then return false end
    local next = string.format('%d', n + tonumber(ARGV[1]))
    redis.call('SET', KEYS[1], at .. ':' .. next, 'KEEPTTL')
    return next
  end
end
local entry = ARGV[2] .. ':' .. ARGV[1]
if ARGV[4] == '' then redis.call('SET', KEYS[1], entry) else redis.call('SET', KEYS[1], entry, 'PX', ARGV[4]) end
return ARGV[1]`;

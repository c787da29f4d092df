import { LUA_SERVER_NOW } from './client.js';

/**
 * `consume` of the Redis CounterStore: the sliding log of `decideSlidingWindows` over one sorted set
 * (score = hit time in ms, member = a unique id, so two hits in the same millisecond both count),
 * decided and recorded in one script, which Redis runs atomically.
 *
 * KEYS[1] = the key's hit log. ARGV: now ('' = the Redis server's clock), member, grace,
 * then limit and windowMs of each window. Returns { allowed (1/0), retryAfterMs }.
 */
export const CONSUME = `local now = tonumber(ARGV[1])
if not now then
${LUA_SERVER_NOW}
  now = server_now
end
local horizon, retry = 0, 0
for i = 4, #ARGV, 2 do horizon = math.max(horizon, tonumber(ARGV[i + 1])) end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', string.format('%d', now - horizon))
for i = 4, #ARGV, 2 do
  local limit, window = tonumber(ARGV[i]), tonumber(ARGV[i + 1])
  local from = string.format('(%d', now - window)
  local count = redis.call('ZCOUNT', KEYS[1], from, '+inf')
  if count >= limit then
    local blocking = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES', 'LIMIT', count - limit, 1)
    retry = math.max(retry, tonumber(blocking[2]) + window - now)
  end
end
if retry > 0 then return { 0, retry } end
redis.call('ZADD', KEYS[1], string.format('%d', now), ARGV[2])
local ttl = horizon + tonumber(ARGV[3])
if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
return { 1, 0 }`;

import { internalCaller, type Caller } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { RecordsService } from '../records/index.js';
import { INSTALLATION_CLASS, PUSH_STATUS_CLASS, targetOf } from './installation-policy.js';
import type { PushOutcome, PushTarget, PushTransport } from './push-transport.js';

/** A push request as the REST body gives it: `data`, and `where` and/or `channels` (neither: every installation). */
export interface PushRequest {
  readonly data: JsonObject;
  readonly where: JsonObject | null;
  readonly channels: readonly string[] | null;
}

export interface PushServiceDeps {
  readonly records: RecordsService;
  readonly transports: Readonly<Partial<Record<PushTarget['kind'], PushTransport>>>;
  readonly logger: Logger;
  /** Deliveries in flight at once per push (default 16). */
  readonly concurrency: number;
  /** Whether an application lets REST-key callers send pushes (`featureSettings.push.clientPush`). */
  readonly clientPush: (caller: Caller) => boolean;
}

export interface PushService {
  /** Validates, counts the audience, records a `_PushStatus` and starts delivering; resolves with the status id. */
  send(caller: Caller, body: JsonObject): Promise<{ readonly pushStatusId: string; readonly audience: number }>;
  /** Resolves when every push started so far has finished delivering. */
  idle(): Promise<void>;
}

const PAGE = 500;
const MAX_DATA_BYTES = 4096;
const CHANNEL = /^[A-Za-z0-9_-]{1,64}$/;

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Parses a `POST /1/push` body: 141 without a `data` object, 11198 for a bad target. */
export function parsePushRequest(body: JsonObject): PushRequest {
  for (const key of Object.keys(body)) if (key !== 'data' && key !== 'where' && key !== 'channels') throw svcError('pushTargetInvalid', `unknown key '${key.slice(0, 32)}'`);
  const data = body['data'];
  if (!isObject(data) || Object.keys(data).length === 0) throw svcError('pushDataMissing');
  if (Buffer.byteLength(JSON.stringify(data)) > MAX_DATA_BYTES) throw svcError('pushTargetInvalid', `data is larger than ${MAX_DATA_BYTES} bytes`);
  const where = body['where'];
  if (where !== undefined && !isObject(where)) throw svcError('pushTargetInvalid', 'where must be an object');
  const channels = body['channels'];
  if (channels !== undefined && (!Array.isArray(channels) || channels.length === 0 || channels.length > 100 || !channels.every((c) => typeof c === 'string' && CHANNEL.test(c)))) {
    throw svcError('pushTargetInvalid', 'channels must be a list of 1 to 100 channel names');
  }
  return { data, where: (where as JsonObject | undefined) ?? null, channels: (channels as string[] | undefined) ?? null };
}

/** The installations' where of a request: its `where`, AND membership of any of its channels. */
function audienceWhere(request: PushRequest): JsonObject {
  const parts: JsonObject[] = [];
  if (request.where) parts.push(request.where);
  if (request.channels) parts.push({ $or: request.channels.map((channel) => ({ channels: channel })) });
  return parts.length === 0 ? {} : parts.length === 1 ? parts[0]! : { $and: parts };
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function eachBounded<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/**
 * `POST /1/push`: the audience is counted (so a bad `where` answers at once, with its code), a
 * `_PushStatus` record is written, and delivery runs after the reply: installations read in pages of
 * 500 by objectId, each page sent with at most `concurrency` deliveries in flight, never the whole
 * audience at once. A provider's "gone for good" deletes the installation. The status ends with
 * `numSent`, `numFailed`, `numInvalid` and `status` `succeeded` (or `failed` when nothing was sent).
 * A client push (not the master key) targets any installation, as Parse Server's does, but its where
 * names only the installation columns the sender sees and reads other tables ($inQuery, $select,
 * $relatedTo) as the sender, so a device that gets the push learns nothing a find would not show.
 */
export function createPushService(deps: PushServiceDeps): PushService {
  const running = new Set<Promise<void>>();

  /** A page or the count of the audience: every installation may be targeted, other tables are read as the sender. */
  const audience = (caller: Caller, query: Record<string, string>) => deps.records.list(caller, INSTALLATION_CLASS, new URLSearchParams(query), { audience: true });

  async function deliver(caller: Caller, statusId: string, request: PushRequest, where: JsonObject): Promise<void> {
    // The service's own bookkeeping (the status, gone installations) is written as the master key.
    const master = internalCaller(caller.app);
    const counts = { numSent: 0, numFailed: 0, numInvalid: 0 };
    const failures = new Map<string, number>();
    let after = '';
    try {
      for (;;) {
        const page = { where: JSON.stringify(after ? { $and: [where, { objectId: { $gt: after } }] } : where), order: 'objectId', limit: String(PAGE) };
        const results = ((await audience(caller, page))['results'] ?? []) as JsonObject[];
        await eachBounded(results, deps.concurrency, async (installation) => {
          const target = targetOf(installation);
          const transport = target ? deps.transports[target.kind] : undefined;
          const outcome: PushOutcome = !target ? { outcome: 'invalid', reason: 'no push target' } : transport ? await transport.send(target, request.data) : { outcome: 'failed', reason: `no ${target.kind} transport configured` };
          if (outcome.outcome === 'sent') counts.numSent++;
          else if (outcome.outcome === 'failed') {
            counts.numFailed++;
            failures.set(outcome.reason.slice(0, 80), (failures.get(outcome.reason.slice(0, 80)) ?? 0) + 1);
          } else {
            counts.numInvalid++;
            await deps.records.delete(master, INSTALLATION_CLASS, String(installation['objectId'])).catch(() => {});
          }
        });
        if (results.length < PAGE) break;
        after = String(results[results.length - 1]!['objectId']);
      }
      const status = counts.numSent === 0 && counts.numFailed > 0 ? 'failed' : 'succeeded';
      const errors = [...failures].slice(0, 10).map(([reason, count]) => ({ reason, count }));
      await deps.records.update(master, PUSH_STATUS_CLASS, statusId, { status, ...counts, errors });
    } catch (error) {
      deps.logger.error('push: delivery stopped', { pushStatusId: statusId, error: String(error) });
      await deps.records.update(master, PUSH_STATUS_CLASS, statusId, { status: 'failed', ...counts, errors: [{ reason: String(error).slice(0, 200), count: 1 }] }).catch(() => {});
    }
  }

  return {
    async send(caller, body) {
      if (!caller.isMaster && !deps.clientPush(caller)) throw svcError('masterKeyRequired');
      const request = parsePushRequest(body);
      if (!deps.transports.web && !deps.transports.fcm) throw svcError('pushNotConfigured', 'no transport: set push.webPush or push.fcm');
      const where = audienceWhere(request);
      const counted = Number((await audience(caller, { where: JSON.stringify(where), count: '1', limit: '0' }))['count'] ?? 0);
      const created = await deps.records.create(internalCaller(caller.app), PUSH_STATUS_CLASS, {
        status: 'running',
        audience: counted,
        // As Parse Server: the query as JSON text (its `$` keys cannot be field names of an Object).
        query: JSON.stringify(where),
        data: request.data,
        numSent: 0,
        numFailed: 0,
        numInvalid: 0,
      });
      const statusId = String(created.reply['objectId']);
      const work = deliver(caller, statusId, request, where);
      running.add(work);
      void work.finally(() => running.delete(work));
      return { pushStatusId: statusId, audience: counted };
    },
    async idle() {
      while (running.size > 0) await Promise.all([...running]);
    },
  };
}

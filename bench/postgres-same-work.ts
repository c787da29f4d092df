/**
 * The same-work limit of the PostgreSQL REST rows (issue 37): a hand-written node:http handler on
 * postgres.js issuing the SQL a PostgreSQL expert would write against svcbase's own table and
 * indexes, one prepared statement per request: the order an index serves (`score ASC NULLS FIRST`,
 * `"objectId" COLLATE "C"`), `RETURNING` only what the reply needs. Around it, only what svcbase
 * must also do: check the application id and REST key in constant time, parse the path, `where` and
 * JSON body, validate types, encode the record JSON the REST API answers (dates as `YYYY-MM-DD
 * HH:mm:ss`, columns in name order, nulls left out). bench/postgres-rest-server.ts checks at start-up
 * that it answers byte for byte what svcbase answers (creates and Increments: status, headers and
 * reply keys).
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type postgres from 'postgres';
import { CLASS_NAME } from './data.js';
import { REST_APP } from './rest-app.js';
import { COLUMNS, TABLE, dateText, newObjectId, send, sha256, typeMatches } from './same-work-kit.js';

type Row = Record<string, unknown>;

const SELECTED = ['objectId', 'createdAt', 'updatedAt', ...COLUMNS.map(([name]) => name)].map((name) => `"${name}"`).join(', ');

/** A row as the REST API shows it (postgres.js gives bigint as text and jsonb parsed). */
function recordOf(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { objectId: row['objectId'], createdAt: dateText(Number(row['createdAt'])), updatedAt: dateText(Number(row['updatedAt'])) };
  for (const [column] of COLUMNS) {
    const value = row[column];
    if (value !== null && value !== undefined) out[column] = value;
  }
  return out;
}

/** The handler, on its own postgres.js client pointed at the schema svcbase's table lives in. */
export function pgSameWorkHandler(sql: postgres.Sql): (req: IncomingMessage, res: ServerResponse) => void {
  const appId = sha256(REST_APP.applicationId);
  const restKey = sha256(REST_APP.restApiKey);
  const run = (text: string, parameters: unknown[]) => sql.unsafe(text, parameters as never[], { prepare: true });
  const byId = `SELECT ${SELECTED} FROM ${TABLE} WHERE "objectId" = $1`;
  const page = `SELECT ${SELECTED} FROM ${TABLE} WHERE "score" >= $1 ORDER BY "score" ASC NULLS FIRST, "objectId" COLLATE "C" ASC NULLS FIRST LIMIT 20`;
  // svcbase's category index is in code point order; the expert's equality uses it.
  const count = `SELECT count(*)::int AS n FROM ${TABLE} WHERE "category" COLLATE "C" = $1`;
  const increment = `UPDATE ${TABLE} SET "level" = COALESCE("level", 0) + $1, "updatedAt" = $2 WHERE "objectId" = $3 RETURNING "updatedAt"`;
  const insert = `INSERT INTO ${TABLE} ("objectId", "createdAt", "updatedAt", "active", "address", "category", "level", "name", "nickname", "score", "tags") VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;
  const fail = (res: ServerResponse, status: number, code: number, error: string) => send(res, status, JSON.stringify({ code, error }));

  const route = async (req: IncomingMessage, res: ServerResponse, body: string | null): Promise<void> => {
    const id = req.headers['x-svc-application-id'];
    const key = req.headers['x-svc-rest-api-key'];
    if (typeof id !== 'string' || typeof key !== 'string' || !timingSafeEqual(sha256(id), appId) || !timingSafeEqual(sha256(key), restKey)) return fail(res, 401, 401, 'unauthorized');
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    const path = at === -1 ? url : url.slice(0, at);
    const prefix = `/1/classes/${CLASS_NAME}`;
    if (req.method === 'GET' && path.startsWith(`${prefix}/`)) {
      const row = (await run(byId, [decodeURIComponent(path.slice(prefix.length + 1))]))[0];
      return row ? send(res, 200, JSON.stringify(recordOf(row))) : fail(res, 404, 101, 'object not found');
    }
    if (req.method === 'GET' && path === prefix) {
      const query = new URLSearchParams(at === -1 ? '' : url.slice(at + 1));
      let where: unknown;
      try {
        where = JSON.parse(query.get('where') ?? '{}');
      } catch {
        return fail(res, 400, 107, 'invalid where');
      }
      const limit = Number(query.get('limit') ?? 100);
      const category = (where as { category?: unknown } | null)?.category;
      if (query.get('count') === '1' && limit === 0 && typeof category === 'string') {
        const n = (await run(count, [category]))[0]!['n'] as number;
        return send(res, 200, JSON.stringify({ results: [], count: n }));
      }
      const bound = (where as { score?: { $gte?: unknown } } | null)?.score?.$gte;
      if (typeof bound !== 'number' || query.get('order') !== 'score' || limit !== 20) return fail(res, 400, 102, 'unsupported query');
      const rows = await run(page, [bound]);
      return send(res, 200, JSON.stringify({ results: rows.map(recordOf) }));
    }
    if (req.method === 'PUT' && path.startsWith(`${prefix}/`)) {
      let data: unknown;
      try {
        data = JSON.parse(body ?? '');
      } catch {
        return fail(res, 400, 107, 'invalid JSON');
      }
      const op = (data as { level?: { __op?: unknown; amount?: unknown } } | null)?.level;
      if (typeof data !== 'object' || data === null || Object.keys(data).length !== 1 || op?.__op !== 'Increment' || typeof op.amount !== 'number' || !Number.isFinite(op.amount)) {
        return fail(res, 400, 111, 'unsupported update');
      }
      const now = Date.now();
      const row = (await run(increment, [op.amount, now, decodeURIComponent(path.slice(prefix.length + 1))]))[0];
      return row ? send(res, 200, JSON.stringify({ updatedAt: dateText(Number(row['updatedAt'])) })) : fail(res, 404, 101, 'object not found');
    }
    if (req.method === 'POST' && path === prefix) {
      let data: unknown;
      try {
        data = JSON.parse(body ?? '');
      } catch {
        return fail(res, 400, 107, 'invalid JSON');
      }
      if (typeof data !== 'object' || data === null || Array.isArray(data)) return fail(res, 400, 107, 'a JSON object');
      const fields = data as Record<string, unknown>;
      for (const name of Object.keys(fields)) {
        const column = COLUMNS.find(([known]) => known === name);
        if (!column || !typeMatches(column[1], fields[name])) return fail(res, 400, 111, `invalid type for ${name}`);
      }
      const objectId = newObjectId();
      const now = Date.now();
      // jsonb parameters: postgres.js encodes the value itself; an array goes wrapped so it is not sent as a PostgreSQL array.
      const json = (value: unknown) => (value === undefined ? null : Array.isArray(value) ? { toJSON: () => value } : value);
      await run(insert, [
        objectId,
        now,
        now,
        fields['active'] ?? null,
        json(fields['address']),
        fields['category'] ?? null,
        fields['level'] ?? null,
        fields['name'] ?? null,
        fields['nickname'] ?? null,
        fields['score'] ?? null,
        json(fields['tags']),
      ]);
      return send(res, 201, JSON.stringify({ createdAt: dateText(now), objectId }), { location: `http://${req.headers.host ?? 'localhost'}${prefix}/${objectId}` });
    }
    return fail(res, 404, 404, 'not found');
  };

  const answer = (req: IncomingMessage, res: ServerResponse, body: string | null) => {
    route(req, res, body).catch((error: unknown) => fail(res, 500, 1, error instanceof Error ? error.message : String(error)));
  };
  return (req, res) => {
    if (req.method === 'GET') return answer(req, res, null);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks).toString('utf8')));
  };
}

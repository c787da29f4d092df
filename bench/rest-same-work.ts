/**
 * The same-work limit of the REST benchmark (issue 22): a hand-written node:http handler that does
 * for each request what svcbase must do and nothing more, on the same SQLite connection: check the
 * application id and REST key in constant time, parse what the request carries (path, `where`,
 * JSON body), validate it against the table's column types, run one prepared statement, encode the
 * record JSON the REST API answers (dates as `YYYY-MM-DD HH:mm:ss`, columns in name order, nulls
 * left out) and send the same status and headers. rest-server.ts checks at start-up that it answers
 * byte for byte what svcbase answers (creates: the same status, headers and reply keys), so the row
 * compares equal work.
 */
import { timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type Database from 'better-sqlite3';
import { CLASS_NAME } from './data.js';
import { REST_APP } from './rest-app.js';
import { COLUMNS, TABLE, dateText, newObjectId, send, sha256, typeMatches } from './same-work-kit.js';

type Row = Record<string, string | number | null>;

/** A stored row as the REST API shows it. */
function recordOf(row: Row): Record<string, unknown> {
  const out: Record<string, unknown> = { objectId: row['objectId'], createdAt: dateText(row['createdAt'] as number), updatedAt: dateText(row['updatedAt'] as number) };
  for (const [column, type] of COLUMNS) {
    const value = row[column];
    if (value === null || value === undefined) continue;
    out[column] = type === 'Boolean' ? value === 1 : type === 'Object' || type === 'Array' ? JSON.parse(value as string) : value;
  }
  return out;
}

/** The handler, over the benchmark's own database connection. */
export function sameWorkHandler(db: Database.Database): (req: IncomingMessage, res: ServerResponse) => void {
  const appId = sha256(REST_APP.applicationId);
  const restKey = sha256(REST_APP.restApiKey);
  const byId = db.prepare(`SELECT * FROM ${TABLE} WHERE "objectId" = ?`);
  const page = db.prepare(`SELECT * FROM ${TABLE} WHERE "score" >= ? ORDER BY "score" ASC, "objectId" ASC LIMIT 20`);
  const count = db.prepare(`SELECT COUNT(*) AS n FROM ${TABLE} WHERE "score" >= ?`);
  const increment = db.prepare(`UPDATE ${TABLE} SET "level" = COALESCE("level", 0) + ?, "updatedAt" = ? WHERE "objectId" = ? RETURNING *`);
  const insert = db.prepare(
    `INSERT INTO ${TABLE} ("objectId", "createdAt", "updatedAt", "active", "address", "category", "level", "name", "nickname", "score", "tags") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const fail = (res: ServerResponse, status: number, code: number, error: string) => send(res, status, JSON.stringify({ code, error }));

  const route = (req: IncomingMessage, res: ServerResponse, body: string | null) => {
    const id = req.headers['x-svc-application-id'];
    const key = req.headers['x-svc-rest-api-key'];
    if (typeof id !== 'string' || typeof key !== 'string' || !timingSafeEqual(sha256(id), appId) || !timingSafeEqual(sha256(key), restKey)) return fail(res, 401, 401, 'unauthorized');
    const url = req.url ?? '/';
    const at = url.indexOf('?');
    const path = at === -1 ? url : url.slice(0, at);
    if (req.method === 'GET' && path === '/1/timestamp') {
      const now = Date.now();
      return send(res, 200, JSON.stringify({ timestamp: Math.floor(now / 1000), datetime: dateText(now) }));
    }
    const prefix = `/1/classes/${CLASS_NAME}`;
    if (req.method === 'GET' && path.startsWith(`${prefix}/`)) {
      const row = byId.get(decodeURIComponent(path.slice(prefix.length + 1))) as Row | undefined;
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
      const bound = (where as { score?: { $gte?: unknown } } | null)?.score?.$gte;
      const limit = Number(query.get('limit') ?? 100);
      if (query.get('count') === '1' && limit === 0 && typeof bound === 'number') {
        return send(res, 200, JSON.stringify({ results: [], count: (count.get(bound) as { n: number }).n }));
      }
      if (typeof bound !== 'number' || query.get('order') !== 'score' || !Number.isInteger(limit) || limit !== 20) return fail(res, 400, 102, 'unsupported query');
      const rows = page.all(bound) as Row[];
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
      // RETURNING * as svcbase's adapter does (the port returns the updated record).
      const row = increment.get(op.amount, now, decodeURIComponent(path.slice(prefix.length + 1))) as Row | undefined;
      return row ? send(res, 200, JSON.stringify({ updatedAt: dateText(row['updatedAt'] as number) })) : fail(res, 404, 101, 'object not found');
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
      const text = (value: unknown) => (value === undefined ? null : JSON.stringify(value));
      insert.run(
        objectId,
        now,
        now,
        fields['active'] === undefined ? null : fields['active'] ? 1 : 0,
        text(fields['address']),
        (fields['category'] as string | undefined) ?? null,
        (fields['level'] as number | undefined) ?? null,
        (fields['name'] as string | undefined) ?? null,
        (fields['nickname'] as string | undefined) ?? null,
        (fields['score'] as number | undefined) ?? null,
        text(fields['tags']),
      );
      return send(res, 201, JSON.stringify({ createdAt: dateText(now), objectId }), { location: `http://${req.headers.host ?? 'localhost'}${prefix}/${objectId}` });
    }
    return fail(res, 404, 404, 'not found');
  };

  return (req, res) => {
    if (req.method === 'GET') return route(req, res, null);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => route(req, res, Buffer.concat(chunks).toString('utf8')));
  };
}

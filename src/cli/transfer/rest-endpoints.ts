import type { Json, JsonObject } from '../../core/wire-values.js';
import { BUILT_IN_FIELDS, type TableDescription, type TransferSink, type TransferSource, isSystemTable, recordsPath } from './endpoints.js';
import { type RestClient, RestError } from './rest-client.js';

const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

async function countOf(client: RestClient, className: string): Promise<number> {
  const reply = await client.json('GET', recordsPath(className), { query: { count: '1', limit: '0' } });
  return isObject(reply) && typeof reply['count'] === 'number' ? reply['count'] : 0;
}

/** Most objectIds asked per existence query. */
const EXISTING_CHUNK = 200;

/** Most members of one relation read per call. */
const MEMBER_PAGE = 1000;

/** Reads tables over the REST API with the master key: schemas, records in objectId order, relation members. */
export function restSource(client: RestClient): TransferSource {
  const list = async (className: string, where: JsonObject, limit: number, keys?: string): Promise<JsonObject[]> => {
    const reply = await client.json('GET', recordsPath(className), {
      query: { where: JSON.stringify(where), order: 'objectId', limit: String(limit), ...(keys ? { keys } : {}) },
    });
    const results = isObject(reply) ? reply['results'] : undefined;
    if (!Array.isArray(results)) throw new RestError(200, undefined, `${recordsPath(className)} answered without results`);
    return results.filter(isObject);
  };
  const members = async (owner: string, ownerId: string, key: string, target: string): Promise<string[]> => {
    const ids: string[] = [];
    for (;;) {
      const related: JsonObject = { $relatedTo: { object: { __type: 'Pointer', className: owner, objectId: ownerId }, key } };
      if (ids.length > 0) related['objectId'] = { $gt: ids.at(-1)! };
      const page = await list(target, related, MEMBER_PAGE, 'objectId');
      for (const record of page) ids.push(String(record['objectId']));
      if (page.length < MEMBER_PAGE) return ids;
    }
  };
  return {
    label: client.label,
    async tables() {
      const reply = await client.json('GET', '/1/schemas');
      const results = isObject(reply) ? reply['results'] : undefined;
      if (!Array.isArray(results)) throw new RestError(200, undefined, 'GET /1/schemas answered without results');
      return results.filter(isObject).map((schema) => schema as unknown as TableDescription);
    },
    count: (className) => countOf(client, className),
    async page(table, after, limit) {
      const records = await list(table.className, after === null ? {} : { objectId: { $gt: after } }, limit);
      const relations = Object.entries(table.fields).filter(([, field]) => field.type === 'Relation' && field.targetClass);
      for (const record of records) {
        for (const [key, field] of relations) {
          const objectIds = await members(table.className, String(record['objectId']), key, field.targetClass!);
          record[key] = { __type: 'Relation', className: field.targetClass!, objectIds };
        }
      }
      return records;
    },
    download: (url) => client.download(url),
  };
}

/**
 * Writes tables through a server's REST API with the master key: the schema API for fields, indexes
 * and class-level permissions, `POST /1/import/<table>` for the records (svcbase's route: ids,
 * times, ACLs and relation members kept; existing ids skipped), `POST /2/files/<name>` for files.
 */
export function restSink(client: RestClient): TransferSink {
  const schemaOf = async (className: string): Promise<JsonObject | null> => {
    try {
      const reply = await client.json('GET', `/1/schemas/${encodeURIComponent(className)}`);
      return isObject(reply) ? reply : null;
    } catch (error) {
      if (error instanceof RestError && error.status === 404) return null;
      throw error;
    }
  };
  return {
    label: client.label,
    async prepare(table) {
      if (isSystemTable(table.className)) return;
      const existing = await schemaOf(table.className);
      const have = existing && isObject(existing['fields']) ? existing['fields'] : {};
      const haveIndexes = existing && isObject(existing['indexes']) ? existing['indexes'] : {};
      const fields: JsonObject = {};
      for (const [name, field] of Object.entries(table.fields)) {
        if (!BUILT_IN_FIELDS.has(name) && !Object.hasOwn(have, name)) fields[name] = { ...field };
      }
      const indexes: JsonObject = {};
      for (const [name, spec] of Object.entries(table.indexes ?? {})) if (name !== '_id_' && !Object.hasOwn(haveIndexes, name)) indexes[name] = spec;
      if (!existing) await client.json('POST', `/1/schemas/${encodeURIComponent(table.className)}`, { body: { className: table.className, fields, indexes } });
      else if (Object.keys(fields).length > 0 || Object.keys(indexes).length > 0) await client.json('PUT', `/1/schemas/${encodeURIComponent(table.className)}`, { body: { fields, indexes } });
    },
    async write(className, records) {
      const reply = await client.json('POST', `/1/import/${encodeURIComponent(className)}`, { body: { records: records as Json[] } });
      if (!isObject(reply) || typeof reply['inserted'] !== 'number' || typeof reply['existing'] !== 'number') throw new RestError(200, undefined, `/1/import/${className} answered ${JSON.stringify(reply).slice(0, 100)}`);
      return { inserted: reply['inserted'], existing: reply['existing'] };
    },
    async finish(table) {
      if (table.classLevelPermissions === undefined || !(await schemaOf(table.className))) return;
      await client.json('PUT', `/1/schemas/${encodeURIComponent(table.className)}`, { body: { classLevelPermissions: table.classLevelPermissions } });
    },
    async existing(className, objectIds) {
      const found = new Set<string>();
      // At most EXISTING_CHUNK ids a query, so the URL stays well under a server's header limit.
      for (let at = 0; at < objectIds.length; at += EXISTING_CHUNK) {
        const ids = objectIds.slice(at, at + EXISTING_CHUNK);
        const reply = await client.json('GET', recordsPath(className), { query: { where: JSON.stringify({ objectId: { $in: ids } }), keys: 'objectId', limit: String(ids.length) } });
        const results = isObject(reply) ? reply['results'] : undefined;
        if (!Array.isArray(results)) throw new RestError(200, undefined, `${recordsPath(className)} answered without results`);
        for (const record of results.filter(isObject)) found.add(String(record['objectId']));
      }
      return found;
    },
    upload: (filename, bytes) => client.upload(filename, bytes),
    count: (className) => countOf(client, className),
    close: async () => {},
  };
}

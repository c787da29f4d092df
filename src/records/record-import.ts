import { actingAs } from './pipeline/write-pipeline.js';
import type { Caller } from '../app/caller.js';
import { isRoleTable } from '../access/access-control.js';
import { svcError } from '../core/errors.js';
import { FORBIDDEN_KEYS, assertTableName, assertWritableField, isValidTableName } from '../core/names.js';
import { parseDateInput } from '../core/time.js';
import { type StoredRecord, dateValue } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { applyOps } from '../operators/apply.js';
import type { ColumnSchema, TableSchema } from '../query/plan.js';
import type { FieldOp, StorageAdapter, TableRef } from '../storage/port.js';
import { isPlausibleObjectId } from '../core/object-id.js';
import { parseWriteWithAcl } from './record-access.js';
import type { RecordDeps } from './record-ops.js';

/** What one import request did: records written, and records skipped because their objectId was there already. */
export interface ImportOutcome {
  readonly inserted: number;
  readonly existing: number;
}

/** Most records one import request takes. */
export const IMPORT_MAX_RECORDS = 1000;

/**
 * Tables an import refuses: sessions and identity links are credentials of the source server, and
 * class-level permissions travel through the schema API.
 */
const REFUSED_TABLES: ReadonlySet<string> = new Set(['_Session', '_AuthLink', '_ClassPermissions']);

/** Output-only columns of `_User` that an exported record may carry; an import drops them. */
const USER_OUTPUT_ONLY = ['sessionToken'];

/**
 * Restores exported records as they were: their own objectId, createdAt and updatedAt, their ACL,
 * and the members of their Relation columns given as `{"__type":"Relation","className":C,"objectIds":[...]}`
 * (a bare `{"__type":"Relation","className":C}` only declares the column). Master key only. A record
 * whose objectId exists is skipped, so a resumed import never duplicates. Values are validated as
 * every write's are, before the first write; with a transactional adapter the request is all or nothing.
 * Passwords cannot be imported (a user sets a new one through the reset flow).
 */
export async function importRecords(deps: RecordDeps, caller: Caller, className: string, records: readonly Json[]): Promise<ImportOutcome> {
  if (!caller.isMaster) throw svcError('masterKeyRequired');
  assertTableName(className);
  if (REFUSED_TABLES.has(className)) throw svcError('importRefused', `table ${className} cannot be imported`);
  if (records.length > IMPORT_MAX_RECORDS) throw svcError('importRefused', `at most ${IMPORT_MAX_RECORDS} records per request, got ${records.length}`);
  const ref: TableRef = { namespace: caller.app.namespace, className };
  const timeZone = caller.app.settings.timeZone;
  const schema = await deps.storage.getSchema(ref);
  const seen = new Set<string>();
  const plans = records.map((record, index) => {
    const plan = planImport(record, index, timeZone, schema, className === '_User');
    if (seen.has(plan.record.objectId)) throw svcError('importRefused', `records[${index}]: objectId ${plan.record.objectId} appears twice`);
    seen.add(plan.record.objectId);
    return plan;
  });
  const write = async (storage: StorageAdapter): Promise<ImportOutcome> => {
    let inserted = 0;
    let existing = 0;
    for (const plan of plans) {
      if (await storage.get(ref, plan.record.objectId, { kind: 'include', columns: ['objectId'] })) {
        existing++;
        continue;
      }
      await storage.ensureColumns(ref, plan.columns, caller.app.settings.schema);
      await storage.insert(ref, plan.record);
      if (plan.relations.length > 0) await storage.update(ref, plan.record.objectId, plan.relations, plan.record.updatedAt);
      inserted++;
    }
    return { inserted, existing };
  };
  const storage = actingAs(deps.storage, caller);
  const outcome = storage.capabilities.transactions ? await storage.transaction(write) : await write(storage);
  if (isRoleTable(className) && outcome.inserted > 0) deps.access.rolesChanged(ref.namespace);
  return outcome;
}

interface ImportPlan {
  readonly record: StoredRecord;
  readonly columns: Record<string, ColumnSchema>;
  readonly relations: FieldOp[];
}

function planImport(json: Json, index: number, timeZone: string, schema: TableSchema | null, isUserTable: boolean): ImportPlan {
  const at = `records[${index}]`;
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw svcError('importRefused', `${at} is not an object`);
  const { objectId, createdAt, updatedAt, ...rest } = json;
  if (typeof objectId !== 'string' || !isPlausibleObjectId(objectId)) throw svcError('importRefused', `${at}: objectId must be a record id, got ${JSON.stringify(objectId ?? null).slice(0, 64)}`);
  const created = timeOf(createdAt, `${at}.createdAt`, timeZone);
  const updated = updatedAt === undefined ? created : timeOf(updatedAt, `${at}.updatedAt`, timeZone);
  if (isUserTable) {
    if (Object.hasOwn(rest, 'password')) throw svcError('importRefused', `${at}: passwords cannot be imported (users set a new one through the password reset)`);
    for (const column of USER_OUTPUT_ONLY) delete rest[column];
  }
  const fields: JsonObject = {};
  const relationColumns: Record<string, ColumnSchema> = {};
  const relations: FieldOp[] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (isRelationValue(value)) {
      if (FORBIDDEN_KEYS.has(key)) throw svcError('forbiddenKey', key);
      assertWritableField(key);
      const relation = relationOf(value, `${at}.${key}`);
      relationColumns[key] = { type: 'Relation', targetClass: relation.targetClass };
      if (relation.ids.length > 0) relations.push({ kind: 'add_relation', column: key, targetClass: relation.targetClass, ids: relation.ids });
    } else {
      fields[key] = value;
    }
  }
  const plan = parseWriteWithAcl(fields, schema, timeZone);
  const record = applyOps({ objectId, createdAt: dateValue(created), updatedAt: dateValue(updated) } as StoredRecord, plan.ops);
  return { record, columns: { ...plan.columns, ...relationColumns }, relations };
}

function isRelationValue(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && value['__type'] === 'Relation';
}

function relationOf(value: JsonObject, at: string): { targetClass: string; ids: string[] } {
  const targetClass = value['className'];
  if (typeof targetClass !== 'string' || !isValidTableName(targetClass)) throw svcError('importRefused', `${at}: a Relation needs a valid className`);
  const ids = value['objectIds'] ?? [];
  if (!Array.isArray(ids) || ids.some((id) => typeof id !== 'string' || !isPlausibleObjectId(id))) {
    throw svcError('importRefused', `${at}: objectIds must be an array of record ids`);
  }
  return { targetClass, ids: [...new Set(ids as string[])] };
}

/** A wire date (`yyyy-MM-dd HH:mm:ss` in the app's zone, ISO, or `{"__type":"Date","iso":...}`) as epoch ms. */
function timeOf(value: Json | undefined, at: string, timeZone: string): number {
  const text = typeof value === 'string' ? value : typeof value === 'object' && value !== null && !Array.isArray(value) && value['__type'] === 'Date' ? value['iso'] : undefined;
  const ms = typeof text === 'string' ? parseDateInput(text, timeZone) : null;
  if (ms === null) throw svcError('importRefused', `${at} must be a date, got ${JSON.stringify(value ?? null).slice(0, 64)}`);
  return ms;
}

import type { Caller } from '../app/caller.js';
import { isSvcError, svcError } from '../core/errors.js';
import { RESERVED_FIELDS, assertTableName, isValidFieldName, isValidTableName } from '../core/names.js';
import type { ColumnType } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import type { ColumnSchema, IndexSpec, TableSchema } from '../query/plan.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import type { ClassPermissionStore } from './class-permission-store.js';
import { INTERNAL_TABLES } from './internal-tables.js';

/**
 * The schema API (`/1/schemas`, master key only) as a service: tables with their typed fields,
 * indexes and class-level permissions, in Parse Server's wire shapes. Adds tables, fields and indexes
 * through the storage port (so SQLite and PostgreSQL apply the DDL); removes them with the port's
 * optional drops (`{"__op":"Delete"}` on a field or an index; DELETE of an empty table), answering
 * 10070 / 10074 on an adapter without them.
 */
export interface SchemaService {
  list(caller: Caller): Promise<JsonObject>;
  get(caller: Caller, className: string): Promise<JsonObject>;
  create(caller: Caller, className: string, body: JsonObject): Promise<JsonObject>;
  update(caller: Caller, className: string, body: JsonObject): Promise<JsonObject>;
  delete(caller: Caller, className: string): Promise<void>;
}

const COLUMN_TYPES: ReadonlySet<string> = new Set<ColumnType>(['String', 'Number', 'Boolean', 'Date', 'Pointer', 'GeoPoint', 'File', 'Array', 'Object', 'Relation']);
const INDEXABLE: ReadonlySet<string> = new Set(['String', 'Number', 'Boolean', 'Date', 'Pointer']);
const BUILT_IN_TYPES: Readonly<Record<string, string>> = { objectId: 'String', createdAt: 'Date', updatedAt: 'Date' };
const INDEX_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
/** Tables the service's own features shape: the schema API may set their permissions, nothing else. */
const SYSTEM_TABLES: ReadonlySet<string> = new Set(['_User', '_Session', '_Role', ...INTERNAL_TABLES]);
/** Open to everyone: what a table without stored class-level permissions means (Parse's default form). */
const OPEN_WIRE: JsonObject = {
  get: { '*': true },
  find: { '*': true },
  count: { '*': true },
  create: { '*': true },
  update: { '*': true },
  delete: { '*': true },
  addField: { '*': true },
  protectedFields: {},
};

function isObject(value: Json | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isDeleteOp(value: Json | undefined): boolean {
  return isObject(value) && value['__op'] === 'Delete';
}

/** `{ "type": "Pointer", "targetClass": "_User" }` → a column, or a coded error (10069, 10065, 103). */
function parseField(name: string, value: Json | undefined): ColumnSchema {
  if (RESERVED_FIELDS.has(name)) throw svcError('schemaFieldReserved', name);
  if (!isValidFieldName(name)) throw svcError('invalidFieldName', name);
  if (!isObject(value) || typeof value['type'] !== 'string') throw svcError('schemaTypeUnknown', JSON.stringify(value ?? null).slice(0, 64));
  const type = value['type'];
  if (!COLUMN_TYPES.has(type)) throw svcError('schemaTypeUnknown', type.slice(0, 64));
  if (type !== 'Pointer' && type !== 'Relation') return { type: type as ColumnType };
  const target = value['targetClass'];
  if (typeof target !== 'string') throw svcError('schemaTargetClassRequired', name);
  assertTableName(target);
  return { type: type as ColumnType, targetClass: target };
}

/** What a schema body changes: columns and indexes to add, and (a PUT's `{"__op":"Delete"}`) to remove. */
interface SchemaChanges {
  readonly addColumns: Record<string, ColumnSchema>;
  readonly dropColumns: string[];
  readonly addIndexes: IndexSpec[];
  readonly dropIndexes: string[];
}

/**
 * `{ "byScore": { "score": 1 } }` (`"$unique": true` makes it unique) → index specs, validated against
 * `columns`; `{ "byScore": { "__op": "Delete" } }` names an existing index to drop (into `drops`).
 */
function parseIndexes(indexes: Json | undefined, columns: Readonly<Record<string, ColumnSchema>>, existing: readonly IndexSpec[], drops: string[]): IndexSpec[] {
  if (indexes === undefined) return [];
  if (!isObject(indexes)) throw svcError('schemaIndexInvalid', 'indexes', 'expected an object of named indexes');
  const out: IndexSpec[] = [];
  for (const [name, spec] of Object.entries(indexes)) {
    if (isDeleteOp(spec)) {
      if (!existing.some((index) => index.name === name)) throw svcError('schemaIndexInvalid', name.slice(0, 64), 'there is no index of this name');
      drops.push(name);
      continue;
    }
    if (!INDEX_NAME.test(name)) throw svcError('schemaIndexInvalid', name.slice(0, 64), 'names are a letter then letters, digits or _');
    if (existing.some((index) => index.name.toLowerCase() === name.toLowerCase() && !drops.includes(index.name))) throw svcError('schemaIndexInvalid', name, 'an index of this name exists');
    if (!isObject(spec)) throw svcError('schemaIndexInvalid', name, 'expected { column: 1, ... }');
    let unique = false;
    const cols: string[] = [];
    for (const [key, direction] of Object.entries(spec)) {
      if (key === '$unique') {
        if (typeof direction !== 'boolean') throw svcError('schemaIndexInvalid', name, '$unique must be a boolean');
        unique = direction;
        continue;
      }
      if (direction !== 1 && direction !== -1) throw svcError('schemaIndexInvalid', name, `direction of '${key.slice(0, 64)}' must be 1 or -1`);
      const type = Object.hasOwn(BUILT_IN_TYPES, key) ? BUILT_IN_TYPES[key] : Object.hasOwn(columns, key) ? columns[key]!.type : undefined;
      if (!type || !INDEXABLE.has(type)) throw svcError('schemaIndexInvalid', name, `'${key.slice(0, 64)}' is not a scalar field of the table`);
      cols.push(key);
    }
    if (cols.length === 0) throw svcError('schemaIndexInvalid', name, 'no fields');
    out.push({ name, columns: cols, unique });
  }
  return out;
}

function wireOf(schema: TableSchema, permissions: Json | null): JsonObject {
  const fields: JsonObject = { objectId: { type: 'String' }, createdAt: { type: 'Date' }, updatedAt: { type: 'Date' }, ACL: { type: 'ACL' } };
  for (const [name, column] of Object.entries(schema.columns)) {
    if (name === 'ACL') continue;
    fields[name] = column.targetClass === undefined ? { type: column.type } : { type: column.type, targetClass: column.targetClass };
  }
  const indexes: JsonObject = {};
  for (const index of schema.indexes) {
    const spec: JsonObject = {};
    for (const column of index.columns) spec[column] = 1;
    if (index.unique) spec['$unique'] = true;
    indexes[index.name] = spec;
  }
  return { className: schema.className, fields, classLevelPermissions: permissions ?? OPEN_WIRE, indexes };
}

export interface SchemaServiceDeps {
  readonly storage: StorageAdapter;
  /** The declared system tables, so a table differing from one only in letter case is never made (access/'s TableRules). */
  readonly systemTables: { caseVariantOf(className: string): string | undefined };
  readonly permissions: ClassPermissionStore;
  /** Called after the schema API changed a table (columns, indexes, the table): other instances forget their copy. */
  readonly onChange?: (table: TableRef) => void;
}

export function createSchemaService(deps: SchemaServiceDeps): SchemaService {
  const { storage, permissions } = deps;
  const refOf = (caller: Caller, className: string): TableRef => ({ namespace: caller.app.namespace, className });
  const requireMaster = (caller: Caller) => {
    if (!caller.isMaster) throw svcError('masterKeyRequired');
  };
  const existing = async (caller: Caller, className: string): Promise<TableSchema> => {
    assertTableName(className);
    const schema = await storage.getSchema(refOf(caller, className));
    if (!schema) throw svcError('schemaClassNotFound', className);
    return schema;
  };
  const read = async (caller: Caller, className: string): Promise<JsonObject> => {
    const schema = await existing(caller, className);
    return wireOf(schema, await permissions.wire(refOf(caller, className)));
  };
  const addIndexes = async (ref: TableRef, indexes: readonly IndexSpec[]) => {
    for (const index of indexes) {
      try {
        await storage.createIndex(ref, index);
      } catch (error) {
        if (isSvcError(error) && error.errorName === 'uniqueViolation') throw svcError('schemaUniqueFailed');
        throw error;
      }
    }
  };
  /** Every change a body asks for, validated against the current schema (null: a new table) before anything is written. */
  const parseChanges = (body: JsonObject, current: TableSchema | null): SchemaChanges => {
    const fields = body['fields'];
    const addColumns: Record<string, ColumnSchema> = {};
    const dropColumns: string[] = [];
    if (fields !== undefined) {
      if (!isObject(fields)) throw svcError('schemaTypeUnknown', 'fields');
      for (const [name, value] of Object.entries(fields)) {
        if (isDeleteOp(value)) {
          if (RESERVED_FIELDS.has(name)) throw svcError('schemaFieldReserved', name);
          if (!current || !Object.hasOwn(current.columns, name)) throw svcError('schemaFieldMissing', name.slice(0, 64));
          dropColumns.push(name);
        } else {
          if (current && Object.hasOwn(current.columns, name)) throw svcError('schemaFieldExists', name);
          addColumns[name] = parseField(name, value);
        }
      }
    }
    const kept: Record<string, ColumnSchema> = { ...current?.columns, ...addColumns };
    for (const name of dropColumns) delete kept[name];
    const dropIndexes: string[] = [];
    const addIndexes = parseIndexes(body['indexes'], kept, current?.indexes ?? [], dropIndexes);
    if ((dropColumns.length > 0 && !storage.dropColumn) || (dropIndexes.length > 0 && !storage.dropIndex)) throw svcError('schemaOpUnsupported', 'Delete');
    return { addColumns, dropColumns, addIndexes, dropIndexes };
  };
  const assertKeys = (body: JsonObject) => {
    for (const key of Object.keys(body)) {
      if (key !== 'className' && key !== 'fields' && key !== 'indexes' && key !== 'classLevelPermissions') throw svcError('invalidParameter', `unknown schema key '${key.slice(0, 64)}'`);
    }
  };

  return {
    async list(caller) {
      requireMaster(caller);
      if (!storage.listTables) throw svcError('schemaListUnsupported');
      const names = (await storage.listTables(caller.app.namespace)).filter((name) => isValidTableName(name) && !INTERNAL_TABLES.has(name)).sort();
      const results: Json[] = [];
      for (const name of names) {
        const schema = await storage.getSchema(refOf(caller, name));
        if (schema) results.push(wireOf(schema, await permissions.wire(refOf(caller, name))));
      }
      return { results };
    },
    async get(caller, className) {
      requireMaster(caller);
      return read(caller, className);
    },
    async create(caller, className, body) {
      requireMaster(caller);
      assertTableName(className);
      assertKeys(body);
      if (body['className'] !== undefined && body['className'] !== className) throw svcError('schemaClassMismatch', String(body['className']).slice(0, 64), className);
      if (SYSTEM_TABLES.has(className)) throw svcError('schemaSystemTable', className);
      const shadowed = deps.systemTables.caseVariantOf(className);
      if (shadowed !== undefined) throw svcError('classNameCollision', className, shadowed);
      const ref = refOf(caller, className);
      if (await storage.getSchema(ref)) throw svcError('schemaClassExists', className);
      const changes = parseChanges(body, null);
      const clp = body['classLevelPermissions'];
      // Everything is validated before the first write: a refused body creates nothing.
      if (clp !== undefined) permissions.validate(clp);
      try {
        await storage.ensureColumns(ref, changes.addColumns, caller.app.settings.schema);
        await addIndexes(ref, changes.addIndexes);
      } finally {
        deps.onChange?.(ref);
      }
      if (clp !== undefined) await permissions.write(ref, clp);
      return read(caller, className);
    },
    async update(caller, className, body) {
      requireMaster(caller);
      assertKeys(body);
      const current = await existing(caller, className);
      if (body['className'] !== undefined && body['className'] !== className) throw svcError('schemaClassMismatch', String(body['className']).slice(0, 64), className);
      const ref = refOf(caller, className);
      const system = SYSTEM_TABLES.has(className);
      // The system tables' permissions may be set (`_User`'s, ...); an internal table's are fixed by its feature.
      if (INTERNAL_TABLES.has(className) || (system && (body['fields'] !== undefined || body['indexes'] !== undefined))) throw svcError('schemaSystemTable', className);
      const changes = parseChanges(body, current);
      const clp = body['classLevelPermissions'];
      if (clp !== undefined && clp !== null) permissions.validate(clp);
      // Drops first, so a PUT may replace a field or an index of the same name.
      try {
        for (const name of changes.dropIndexes) await storage.dropIndex!(ref, name);
        for (const name of changes.dropColumns) await storage.dropColumn!(ref, name);
        if (Object.keys(changes.addColumns).length > 0) await storage.ensureColumns(ref, changes.addColumns, caller.app.settings.schema);
        await addIndexes(ref, changes.addIndexes);
      } finally {
        // Announced even after a failure part-way: what did change must not wait for the cache bound.
        if (changes.dropIndexes.length + changes.dropColumns.length + Object.keys(changes.addColumns).length + changes.addIndexes.length > 0) deps.onChange?.(ref);
      }
      if (clp !== undefined) await permissions.write(ref, clp);
      return read(caller, className);
    },
    async delete(caller, className) {
      requireMaster(caller);
      await existing(caller, className);
      if (SYSTEM_TABLES.has(className)) throw svcError('schemaSystemTable', className);
      if (!storage.dropTable) throw svcError('schemaDeleteRefused', 'this storage adapter cannot drop tables (dropTable)');
      const ref = refOf(caller, className);
      // As Parse Server: only an empty table is dropped (its records are deleted through the API first,
      // where ACLs, hooks and realtime see each one). The count and the drop share one transaction.
      await storage.transaction(async (tx) => {
        const records = await tx.count(ref, { kind: 'all_records' });
        if (records > 0) throw svcError('schemaDeleteRefused', `class ${className} is not empty, contains ${records} objects`);
        await tx.dropTable!(ref);
      });
      deps.onChange?.(ref);
      await permissions.write(ref, null);
    },
  };
}

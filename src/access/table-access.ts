import { svcError } from '../core/errors.js';
import type { PointerValue, StoredRecord } from '../core/values.js';
import { compilePredicate } from '../query/evaluate/index.js';
import type { EvalEnv } from '../query/evaluate/context.js';
import type { WhereNode } from '../query/plan.js';
import type { TableRef } from '../storage/port.js';
import { ACL_COLUMN, aclReadFilter } from './acl-filter.js';
import type { Acl } from './acl.js';
import { type ClassOperation, type ClassPermissions, type ReadOperation, classAllows, pointerFieldsFor, protectedFieldsFor } from './class-permissions.js';
import { type Principals, aclAllows } from './principals.js';
import { NO_RECORDS } from './restrict-where.js';
import type { TableRule } from './table-rules.js';

/**
 * The one access decision of one caller over one table: every reader and writer (get, find, count,
 * statistics, include, inner queries, realtime, function data modules, the users list) asks it,
 * so no path can reveal what another refuses.
 *
 * - `allows` / `assert`: whether an operation may run at all (the table's rule, its class-level
 *   permissions with pointer permissions, the master key);
 * - `readFilter`: the rows an allowed read reaches, as a where node pushed into the query (ACL and
 *   pointer permissions); `mayRead` is the same filter evaluated on a row that arrives another way
 *   (a realtime event, a write's reply);
 * - `mayWrite`: whether an update or delete may touch this stored row (ACL write, pointer permissions);
 * - `hidden` / `project`: the columns the caller never sees nor names (protected fields, secret columns).
 */
export interface TableAccess {
  readonly table: TableRef;
  readonly master: boolean;
  allows(operation: ClassOperation): boolean;
  /** Throws the refusal of `operation`: 11006 on a master-only table, 11171 by class-level permissions. */
  assert(operation: ClassOperation): void;
  /** The row filter of an allowed read; null when every row is readable (the master key). */
  readFilter(operation: ReadOperation): WhereNode | null;
  /** Whether an allowed read reaches `row`: `readFilter` evaluated in memory (the row needs `rowColumns`). */
  mayRead(row: Readonly<Record<string, unknown>>, operation: ReadOperation): boolean;
  /** Whether an allowed update or delete may touch `row` (which needs `rowColumns(operation)`). */
  mayWrite(row: Readonly<Record<string, unknown>>, operation: 'update' | 'delete'): boolean;
  /** The columns a row check reads: a read or write under a projection fetches them too. */
  rowColumns(operation: ClassOperation): readonly string[];
  /**
   * Whether an update or delete must read the row to check it: false for the master key, and when
   * no row of a table without an ACL column could be refused (no pointer permissions apply, and
   * rows without an ACL are public-write).
   */
  writeNeedsRow(operation: 'update' | 'delete', tableHasAcl: boolean): boolean;
  /** Whether `operation` is open on every row, not only through pointer permissions (a create's addField needs it). */
  allowsEveryRow(operation: ClassOperation): boolean;
  /** Columns hidden from this caller and refused in its queries (102). */
  readonly hidden: ReadonlySet<string>;
  /** `row` without the hidden columns (the same object when none is present). */
  project<T extends Readonly<Record<string, unknown>>>(row: T): T;
}

/** What a view is computed from; every part is cached by its owner, so views are cached by identity. */
export interface TableAccessInput {
  readonly table: TableRef;
  readonly rule: TableRule;
  readonly permissions: ClassPermissions;
  /** The caller's principals, or null for the master key. */
  readonly principals: Principals | null;
}

const ACL_ONLY: readonly string[] = Object.freeze([ACL_COLUMN]);
const NONE: readonly string[] = Object.freeze([]);

/** The evaluator's surroundings for row filters: they name no other table. */
const ROW_ENV: EvalEnv = { className: '', records: () => [], relationMembers: () => new Set(), schema: () => null };

function withoutColumns<T extends Readonly<Record<string, unknown>>>(row: T, hidden: ReadonlySet<string>): T {
  if (hidden.size === 0) return row;
  let out: Record<string, unknown> | null = null;
  for (const column of hidden) {
    if (!Object.hasOwn(row, column)) continue;
    out ??= { ...row };
    delete out[column];
  }
  return (out ?? row) as T;
}

/** The rows whose `fields` point to `userId` (`eq` on an array column matches membership), or none when anonymous. */
function pointerFilter(fields: readonly string[], userId: string | null): WhereNode {
  if (userId === null) return NO_RECORDS;
  const user: PointerValue = { __type: 'Pointer', className: '_User', objectId: userId };
  const nodes: WhereNode[] = fields.map((column) => ({ kind: 'compare', field: { column, path: [] }, op: 'eq', value: user }));
  return nodes.length === 1 ? nodes[0]! : { kind: 'or', nodes };
}

function masterView(input: TableAccessInput): TableAccess {
  const hidden = input.rule.secretColumns;
  return {
    table: input.table,
    master: true,
    allows: () => true,
    assert: () => {},
    readFilter: () => null,
    mayRead: () => true,
    mayWrite: () => true,
    rowColumns: () => NONE,
    writeNeedsRow: () => false,
    allowsEveryRow: () => true,
    hidden,
    project: (row) => withoutColumns(row, hidden),
  };
}

type Gate = { readonly open: false } | { readonly open: true; readonly pointerFields: readonly string[] };

/** The access view of `input` (pure: storage reads happened before, in the caches that built the input). */
export function tableAccess(input: TableAccessInput): TableAccess {
  const { principals, permissions, rule, table } = input;
  if (principals === null) return masterView(input);
  const gates = new Map<ClassOperation, Gate>();
  const gate = (operation: ClassOperation): Gate => {
    let found = gates.get(operation);
    if (!found) {
      if (rule.masterOnly.has(operation)) found = { open: false };
      else if (classAllows(permissions, operation, principals)) found = { open: true, pointerFields: NONE };
      else {
        const pointerFields = pointerFieldsFor(permissions, operation);
        found = pointerFields.length > 0 ? { open: true, pointerFields } : { open: false };
      }
      gates.set(operation, found);
    }
    return found;
  };
  const filters = new Map<ClassOperation, { readonly node: WhereNode; readonly test: (row: StoredRecord) => boolean }>();
  const rowFilter = (operation: ReadOperation) => {
    let found = filters.get(operation);
    if (!found) {
      const g = gate(operation);
      const acl = aclReadFilter(principals);
      const node: WhereNode = !g.open ? NO_RECORDS : g.pointerFields.length === 0 ? acl : { kind: 'and', nodes: [acl, pointerFilter(g.pointerFields, principals.userId)] };
      found = { node, test: compilePredicate(node, { env: ROW_ENV, className: table.className, schema: null }) };
      filters.set(operation, found);
    }
    return found;
  };
  const pointerTests = new Map<ClassOperation, (row: StoredRecord) => boolean>();
  const pointerTest = (operation: ClassOperation, fields: readonly string[]) => {
    let test = pointerTests.get(operation);
    if (!test) pointerTests.set(operation, (test = compilePredicate(pointerFilter(fields, principals.userId), { env: ROW_ENV, className: table.className, schema: null })));
    return test;
  };
  const hidden = hiddenColumns(rule, permissions, principals);
  return {
    table,
    master: false,
    allows: (operation) => gate(operation).open,
    assert(operation) {
      if (gate(operation).open) return;
      if (rule.masterOnly.has(operation)) throw svcError('masterKeyRequired');
      throw svcError('classPermissionDenied', operation, table.className);
    },
    readFilter: (operation) => rowFilter(operation).node,
    mayRead: (row, operation) => rowFilter(operation).test(row as StoredRecord),
    mayWrite(row, operation) {
      const g = gate(operation);
      if (!g.open) return false;
      const acl = row[ACL_COLUMN] as Acl | undefined | null;
      if ((acl === undefined || acl === null) && !rule.rowsWithoutAclWritable) return false;
      if (!aclAllows(acl, principals, 'write')) return false;
      return g.pointerFields.length === 0 || pointerTest(operation, g.pointerFields)(row as StoredRecord);
    },
    rowColumns(operation) {
      const g = gate(operation);
      return g.open && g.pointerFields.length > 0 ? [ACL_COLUMN, ...g.pointerFields] : ACL_ONLY;
    },
    writeNeedsRow(operation, tableHasAcl) {
      const g = gate(operation);
      return !g.open || g.pointerFields.length > 0 || tableHasAcl || !rule.rowsWithoutAclWritable;
    },
    allowsEveryRow(operation) {
      const g = gate(operation);
      return g.open && g.pointerFields.length === 0;
    },
    hidden,
    project: (row) => withoutColumns(row, hidden),
  };
}

function hiddenColumns(rule: TableRule, permissions: ClassPermissions, principals: Principals): ReadonlySet<string> {
  if (permissions.protectedFields.size === 0) return rule.secretColumns;
  const hidden = protectedFieldsFor(permissions, principals);
  if (rule.secretColumns.size === 0) return hidden;
  return new Set([...hidden, ...rule.secretColumns]);
}

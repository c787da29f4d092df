import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import { PUBLIC_PRINCIPAL, ROLE_PREFIX, isValidRoleName } from './acl.js';
import type { Principals } from './principals.js';

/** The operations a class-level permission governs (Parse Server's names). */
export const CLASS_OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'] as const;
export type ClassOperation = (typeof CLASS_OPERATIONS)[number];

/** The operations that read rows (their pointer permissions are `readUserFields`). */
export const READ_OPERATIONS = ['get', 'find', 'count'] as const;
export type ReadOperation = (typeof READ_OPERATIONS)[number];

/**
 * Who may run one operation: principals (`*`, user ids, `role:<name>`) and/or any signed-in user;
 * `pointerFields` admits a signed-in user to the rows whose named Pointer (or array of Pointers)
 * column points to it (Parse Server's pointer permissions).
 */
export interface OperationRule {
  readonly principals: ReadonlySet<string>;
  readonly requiresAuthentication: boolean;
  readonly pointerFields?: readonly string[];
}

/**
 * A table's class-level permissions. An operation without a rule is open to every caller (the default
 * of a new table); an empty rule admits only the master key. `protectedFields` hides columns from
 * reads per principal (`*` or user id or `role:<name>`, and `authenticated`).
 */
export interface ClassPermissions {
  readonly operations: Readonly<Partial<Record<ClassOperation, OperationRule>>>;
  readonly protectedFields: ReadonlyMap<string, readonly string[]>;
  /**
   * Pointer permissions of `get`, `find` and `count`: a caller the operation's rule does not admit
   * may still read the rows whose named column points to its user.
   */
  readonly readUserFields?: readonly string[];
  /** Pointer permissions of `update`, `delete` and `addField` (never `create`). */
  readonly writeUserFields?: readonly string[];
}

export const OPEN_CLASS: ClassPermissions = Object.freeze({ operations: Object.freeze({}), protectedFields: new Map() });

const USER_FIELDS = ['readUserFields', 'writeUserFields'] as const;
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;

const AUTHENTICATED = 'authenticated';
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

function principalKey(key: string): boolean {
  if (key === PUBLIC_PRINCIPAL) return true;
  if (key.startsWith(ROLE_PREFIX)) return isValidRoleName(key.slice(ROLE_PREFIX.length));
  return USER_ID.test(key) && !(key in Object.prototype);
}

function isObject(value: Json | undefined): value is { readonly [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Parses the wire form (Parse Server's): `{ find: { "*": true }, create: { "role:admin": true },
 * update: { requiresAuthentication: true }, protectedFields: { "*": ["email"] } }`. Anything else is
 * refused with 11170 naming the offending key; nothing is stored half-parsed.
 */
export function parseClassPermissions(value: Json | undefined): ClassPermissions {
  if (!isObject(value)) throw svcError('invalidClassPermissions', 'expected an object');
  const operations: Partial<Record<ClassOperation, OperationRule>> = {};
  const protectedFields = new Map<string, readonly string[]>();
  const userFields: { readUserFields?: readonly string[]; writeUserFields?: readonly string[] } = {};
  for (const key of Object.keys(value)) {
    const rule = value[key];
    if (key === 'readUserFields' || key === 'writeUserFields') {
      userFields[key] = fieldList(rule, key);
      continue;
    }
    if (key === 'protectedFields') {
      if (!isObject(rule)) throw svcError('invalidClassPermissions', 'protectedFields must be an object');
      for (const who of Object.keys(rule)) {
        if (who !== AUTHENTICATED && !principalKey(who)) throw svcError('invalidClassPermissions', `protectedFields key '${who}'`);
        const fields = rule[who];
        if (!Array.isArray(fields) || !fields.every((f): f is string => typeof f === 'string')) {
          throw svcError('invalidClassPermissions', `protectedFields.${who} must be a list of column names`);
        }
        protectedFields.set(who, [...new Set(fields)]);
      }
      continue;
    }
    if (!(CLASS_OPERATIONS as readonly string[]).includes(key)) throw svcError('invalidClassPermissions', `unknown operation '${key}'`);
    if (!isObject(rule)) throw svcError('invalidClassPermissions', `${key} must be an object`);
    const principals = new Set<string>();
    let requiresAuthentication = false;
    let pointerFields: readonly string[] | undefined;
    for (const who of Object.keys(rule)) {
      if (who === 'pointerFields') {
        if (key === 'create') throw svcError('invalidClassPermissions', 'create cannot have pointerFields');
        pointerFields = fieldList(rule[who], `${key}.pointerFields`);
        continue;
      }
      if (rule[who] !== true) throw svcError('invalidClassPermissions', `${key}.${who} must be true`);
      if (who === 'requiresAuthentication') requiresAuthentication = true;
      else if (principalKey(who)) principals.add(who);
      else throw svcError('invalidClassPermissions', `${key} key '${who}'`);
    }
    operations[key as ClassOperation] = pointerFields && pointerFields.length > 0 ? { principals, requiresAuthentication, pointerFields } : { principals, requiresAuthentication };
  }
  return { operations, protectedFields, ...userFields };
}

/** A list of column names (a pointer permission's fields), or 11170. */
function fieldList(value: Json | undefined, where: string): readonly string[] {
  if (!Array.isArray(value) || !value.every((f): f is string => typeof f === 'string' && FIELD_NAME.test(f))) {
    throw svcError('invalidClassPermissions', `${where} must be a list of column names`);
  }
  return [...new Set(value)];
}

/** The wire form of parsed permissions (what the schema API returns). */
export function classPermissionsToJson(permissions: ClassPermissions): { [key: string]: Json } {
  const out: { [key: string]: Json } = {};
  for (const op of CLASS_OPERATIONS) {
    const rule = permissions.operations[op];
    if (!rule) continue;
    const entry: { [key: string]: Json } = {};
    for (const who of rule.principals) entry[who] = true;
    if (rule.requiresAuthentication) entry['requiresAuthentication'] = true;
    if (rule.pointerFields) entry['pointerFields'] = [...rule.pointerFields];
    out[op] = entry;
  }
  for (const key of USER_FIELDS) {
    const fields = permissions[key];
    if (fields) out[key] = [...fields];
  }
  if (permissions.protectedFields.size > 0) {
    const fields: { [key: string]: Json } = {};
    for (const [who, list] of permissions.protectedFields) fields[who] = [...list];
    out['protectedFields'] = fields;
  }
  return out;
}

/**
 * Whether a non-master caller may run `operation` on every row of the table. Without a rule the
 * operation is open; `requiresAuthentication` admits any signed-in user; otherwise one of the
 * caller's principals must be listed (the master key is checked by the caller before this).
 */
export function classAllows(permissions: ClassPermissions, operation: ClassOperation, principals: Principals): boolean {
  const rule = permissions.operations[operation];
  if (!rule) return true;
  if (rule.requiresAuthentication && principals.userId !== null) return true;
  return principals.keys.some((key) => rule.principals.has(key));
}

/**
 * The pointer permissions that apply to `operation` when `classAllows` refuses it: the columns whose
 * rows a signed-in caller may still reach (the operation's `pointerFields` and the table's
 * `readUserFields` or `writeUserFields`), as Parse Server reads them. Empty: the operation is refused.
 * `create` has none: a row that does not exist yet points to nobody.
 */
export function pointerFieldsFor(permissions: ClassPermissions, operation: ClassOperation): readonly string[] {
  if (operation === 'create') return [];
  const own = permissions.operations[operation]?.pointerFields ?? [];
  const shared = (READ_OPERATIONS as readonly string[]).includes(operation) ? permissions.readUserFields : permissions.writeUserFields;
  if (!shared || shared.length === 0) return own;
  return own.length === 0 ? shared : [...new Set([...own, ...shared])];
}

/**
 * The columns hidden from this caller: the intersection of the lists of every entry that applies to
 * it (`*`, `authenticated` when signed in, its user id, its roles), as Parse Server does, so a more
 * specific entry can reveal what `*` hides. No applicable entry hides nothing.
 */
export function protectedFieldsFor(permissions: ClassPermissions, principals: Principals): ReadonlySet<string> {
  let hidden: Set<string> | undefined;
  const apply = (key: string) => {
    const list = permissions.protectedFields.get(key);
    if (!list) return;
    hidden = hidden === undefined ? new Set(list) : new Set(list.filter((f) => hidden!.has(f)));
  };
  for (const key of principals.keys) apply(key);
  if (principals.userId !== null) apply(AUTHENTICATED);
  return hidden ?? new Set();
}

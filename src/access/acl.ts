import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';

/** What a principal may do with a record. */
export type AclPermission = 'read' | 'write';

/** The grants of one principal: only `true` values are stored. */
export interface AclGrant {
  readonly read?: true;
  readonly write?: true;
}

/**
 * A record's access-control list: principal -> grant. A principal is a user objectId, `*` (everyone)
 * or `role:<name>`. A record without an ACL is readable and writable by everyone (the hosted default).
 */
export type Acl = Readonly<Record<string, AclGrant>>;

export const PUBLIC_PRINCIPAL = '*';
export const ROLE_PREFIX = 'role:';

/** Role names: letters, digits, `-`, `_` and spaces (error 139's wording; the docs' narrower list is a subset). */
const ROLE_NAME = /^[A-Za-z0-9_\- ]{1,128}$/;
/** User objectIds as svcbase and the hosted service make them; a principal is never a path or a prototype key. */
const USER_ID = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidRoleName(name: string): boolean {
  return ROLE_NAME.test(name) && name.trim() === name;
}

/**
 * Parses a client's ACL value into the typed map, refusing every other shape with 107 (the hosted
 * service's message). Keys: `*`, a user objectId or `role:<valid role name>`; values: objects whose
 * only keys are `read`/`write` with the value `true`. The result is a null-prototype object, so a key
 * such as `__proto__` can never reach a prototype.
 *
 * @example parseAcl({ '*': { read: true }, Kc3M222k: { read: true, write: true } })
 */
export function parseAcl(value: Json | undefined): Acl {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('invalidAcl');
  const acl: Record<string, AclGrant> = Object.create(null) as Record<string, AclGrant>;
  for (const principal of Object.keys(value)) {
    if (!isPrincipal(principal)) throw svcError('invalidAcl');
    const grant = value[principal];
    if (typeof grant !== 'object' || grant === null || Array.isArray(grant)) throw svcError('invalidAcl');
    const keys = Object.keys(grant);
    if (keys.length === 0) throw svcError('invalidAcl');
    const parsed: { read?: true; write?: true } = {};
    for (const key of keys) {
      if ((key !== 'read' && key !== 'write') || grant[key] !== true) throw svcError('invalidAcl');
      parsed[key] = true;
    }
    acl[principal] = parsed;
  }
  return acl;
}

function isPrincipal(key: string): boolean {
  if (key === PUBLIC_PRINCIPAL) return true;
  if (key.startsWith(ROLE_PREFIX)) return isValidRoleName(key.slice(ROLE_PREFIX.length));
  // Names a plain object inherits (`__proto__`, `constructor`, ...) are never objectIds.
  return USER_ID.test(key) && !(key in Object.prototype);
}

/** The ACL a new `_User` gets when the client sends none: everyone reads, the user writes. */
export function newUserAcl(userId: string): Acl {
  return { [PUBLIC_PRINCIPAL]: { read: true }, [userId]: { read: true, write: true } };
}

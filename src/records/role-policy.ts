import { isValidRoleName, PUBLIC_PRINCIPAL } from '../access/acl.js';
import { ROLE_CLASS } from '../access/role-lookup.js';
import { isSvcError, svcError } from '../core/errors.js';
import type { StorageAdapter, TableRef } from '../storage/port.js';
import type { ClassPolicy, ClassWriteContext } from './class-policy.js';

const ROLE_COLUMNS = {
  name: { type: 'String' },
  users: { type: 'Relation', targetClass: '_User' },
  roles: { type: 'Relation', targetClass: ROLE_CLASS },
  ACL: { type: 'Object' },
} as const;

/**
 * Creates `_Role` with its typed columns and a unique index on `name` once per namespace and storage,
 * so a `users` or `roles` write of the wrong type is refused by the write parser (111) and two racing
 * creates of one name end with exactly one role.
 */
function roleTableSetup(): (storage: StorageAdapter, table: TableRef) => Promise<void> {
  const done = new WeakMap<StorageAdapter, Map<string, Promise<void>>>();
  return (storage, table) => {
    let namespaces = done.get(storage);
    if (!namespaces) done.set(storage, (namespaces = new Map()));
    let pending = namespaces.get(table.namespace);
    if (!pending) {
      const started = (async () => {
        await storage.ensureColumns(table, ROLE_COLUMNS);
        await storage.createIndex(table, { name: 'unique_name', columns: ['name'], unique: true });
      })();
      namespaces.set(table.namespace, (pending = started));
      started.catch(() => namespaces!.delete(table.namespace));
    }
    return pending;
  };
}

/**
 * The rules of `_Role` (`/1/roles` and `/1/classes/_Role`, rest-facts §5.3): `name` required, valid
 * (139) and unique (139), set once (11172); `users` a Relation to `_User`, `roles` a Relation to
 * `_Role` (a child role's members inherit this role's rights). A role created without an ACL gets
 * `{"*":{"read":true}}`: readable by everyone, writable (its membership changed) by the master key
 * only, whoever created it; never public-write, or anyone could add themselves. Rows stored without
 * an ACL (imported, or older) are treated the same way by access/ (`ROLE_TABLE_RULE`). Never in a batch.
 */
export function rolePolicy(): ClassPolicy {
  const setup = roleTableSetup();
  const ready = (ctx: ClassWriteContext) => setup(ctx.storage, { namespace: ctx.caller.app.namespace, className: ROLE_CLASS });
  return {
    allowBatch: false,
    async beforeCreate(ctx, body) {
      const name = body['name'];
      if (name === undefined || name === null) throw svcError('fieldMissing', 'name');
      if (typeof name !== 'string' || !isValidRoleName(name)) throw svcError('invalidRoleName');
      await ready(ctx);
      ctx.onWriteError((error) => {
        if (isSvcError(error) && error.errorName === 'uniqueViolation') throw svcError('roleNameTaken', name);
      });
      if (Object.hasOwn(body, 'ACL') && body['ACL'] !== null) return body;
      return { ...body, ACL: { [PUBLIC_PRINCIPAL]: { read: true } } };
    },
    async beforeUpdate(ctx, _objectId, body) {
      if (Object.hasOwn(body, 'name')) throw svcError('roleNameImmutable');
      await ready(ctx);
    },
  };
}

import type { Access } from './access-control.js';

/**
 * Whether `access` may read or act on a row a feature keeps for one user in a plain user-id column
 * (`_Order.userId`) on a master-only table, where no ACL applies: the master key always; otherwise
 * only the session of user `ownerId` (roles grant nothing here). A row without an owner (placed by an
 * anonymous caller) is the master key's alone. The caller answers a refusal exactly as it answers a
 * missing row, so the answer does not reveal that the row exists.
 *
 * @example if (!order || !ownsRow(await access.accessOf(caller), order.userId)) throw svcError('orderNotFound');
 */
export function ownsRow(access: Access, ownerId: string | null | undefined): boolean {
  if (access.master) return true;
  return typeof ownerId === 'string' && ownerId !== '' && access.principals.userId === ownerId;
}

import { describe, expect, it } from 'vitest';
import { MASTER_ACCESS } from '../../src/access/access-control.js';
import { ANONYMOUS, principalsOf } from '../../src/access/principals.js';
import { ownsRow } from '../../src/access/row-owner.js';

// D224: `_Order` rows answered GET /1/pay/:no and refunds for any caller; the pay service now asks this.
describe('ownsRow: a row kept for one user in a user-id column', () => {
  const ann = { master: false, principals: principalsOf('u-ann', ['buyers']) } as const;
  const bob = { master: false, principals: principalsOf('u-bob') } as const;
  const anonymous = { master: false, principals: ANONYMOUS } as const;

  it("is the owner's and the master key's, nobody else's", () => {
    expect(ownsRow(ann, 'u-ann')).toBe(true);
    expect(ownsRow(MASTER_ACCESS, 'u-ann')).toBe(true);
    expect(ownsRow(bob, 'u-ann')).toBe(false);
    expect(ownsRow(anonymous, 'u-ann')).toBe(false);
  });

  it('without an owner, is the master key\'s alone (a role name or an empty id grants nothing)', () => {
    for (const owner of [undefined, null, '']) {
      expect(ownsRow(MASTER_ACCESS, owner)).toBe(true);
      expect(ownsRow(anonymous, owner)).toBe(false);
      expect(ownsRow(ann, owner)).toBe(false);
    }
    expect(ownsRow(ann, 'role:buyers')).toBe(false);
    expect(ownsRow(ann, '*')).toBe(false);
  });
});

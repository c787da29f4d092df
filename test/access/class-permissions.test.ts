import { describe, expect, it } from 'vitest';
import {
  OPEN_CLASS,
  classAllows,
  classPermissionsToJson,
  parseClassPermissions,
  pointerFieldsFor,
  protectedFieldsFor,
} from '../../src/access/class-permissions.js';
import { principalsOf } from '../../src/access/principals.js';
import { isSvcError } from '../../src/core/errors.js';
import type { Json } from '../../src/core/wire-values.js';

function code(value: Json): number | string {
  try {
    parseClassPermissions(value);
    return 'accepted';
  } catch (error) {
    return isSvcError(error) ? error.code : String(error);
  }
}

describe('class-level permissions', () => {
  const clp = parseClassPermissions({
    get: { '*': true },
    find: { requiresAuthentication: true },
    create: { 'role:writers': true, u7: true },
    delete: {},
    protectedFields: { '*': ['email', 'phone'], 'role:staff': ['phone'], authenticated: ['email', 'phone', 'notes'] },
  });
  const anonymous = principalsOf(null);
  const user = principalsOf('u1');
  const writer = principalsOf('u2', ['writers']);
  const staff = principalsOf('u3', ['staff']);

  it('opens operations without a rule and closes an empty rule to everyone', () => {
    expect(classAllows(clp, 'update', anonymous)).toBe(true);
    expect(classAllows(OPEN_CLASS, 'addField', anonymous)).toBe(true);
    expect(classAllows(clp, 'delete', writer)).toBe(false);
  });

  it('admits by public, signed-in, user and role', () => {
    expect(classAllows(clp, 'get', anonymous)).toBe(true);
    expect(classAllows(clp, 'find', anonymous)).toBe(false);
    expect(classAllows(clp, 'find', user)).toBe(true);
    expect(classAllows(clp, 'create', user)).toBe(false);
    expect(classAllows(clp, 'create', writer)).toBe(true);
    expect(classAllows(clp, 'create', principalsOf('u7'))).toBe(true);
  });

  it('hides the intersection of the applicable protected-field lists', () => {
    expect([...protectedFieldsFor(clp, anonymous)].sort()).toEqual(['email', 'phone']);
    expect([...protectedFieldsFor(clp, user)].sort()).toEqual(['email', 'phone']);
    expect([...protectedFieldsFor(clp, staff)]).toEqual(['phone']);
    expect([...protectedFieldsFor(OPEN_CLASS, staff)]).toEqual([]);
  });

  it('pointer permissions: readUserFields for get/find/count, writeUserFields for update/delete/addField, pointerFields per operation; never create', () => {
    const pointers = parseClassPermissions({
      get: {},
      find: { '*': true },
      update: { pointerFields: ['editor'] },
      create: {},
      readUserFields: ['owner', 'members'],
      writeUserFields: ['owner'],
    });
    expect(pointerFieldsFor(pointers, 'get')).toEqual(['owner', 'members']);
    expect(pointerFieldsFor(pointers, 'count')).toEqual(['owner', 'members']);
    expect(pointerFieldsFor(pointers, 'update')).toEqual(['editor', 'owner']);
    expect(pointerFieldsFor(pointers, 'delete')).toEqual(['owner']);
    expect(pointerFieldsFor(pointers, 'create')).toEqual([]);
    expect(pointerFieldsFor(OPEN_CLASS, 'get')).toEqual([]);
    expect(parseClassPermissions(classPermissionsToJson(pointers))).toEqual(pointers);
    expect(classPermissionsToJson(pointers)).toMatchObject({ update: { pointerFields: ['editor'] }, readUserFields: ['owner', 'members'], writeUserFields: ['owner'] });
  });

  it('round-trips through the wire form', () => {
    expect(parseClassPermissions(classPermissionsToJson(clp))).toEqual(clp);
    expect(classPermissionsToJson(clp)).toEqual({
      get: { '*': true },
      find: { requiresAuthentication: true },
      create: { 'role:writers': true, u7: true },
      delete: {},
      protectedFields: { '*': ['email', 'phone'], 'role:staff': ['phone'], authenticated: ['email', 'phone', 'notes'] },
    });
  });

  it.each<[string, Json]>([
    ['not an object', []],
    ['an unknown operation', { drop: { '*': true } }],
    ['a false grant', { get: { '*': false } }],
    ['a bad principal', { get: { "x' or 1=1": true } }],
    ['a prototype name', JSON.parse('{"get":{"__proto__":true}}') as Json],
    ['protectedFields not lists', { protectedFields: { '*': 'email' } }],
    ['protectedFields with a bad key', { protectedFields: { 'role:': ['a'] } }],
    ['readUserFields not a list', { readUserFields: 'owner' }],
    ['writeUserFields with a bad column', { writeUserFields: ["owner'--"] }],
    ['pointerFields on create', { create: { pointerFields: ['owner'] } }],
    ['pointerFields not a list', { get: { pointerFields: { owner: true } } }],
  ])('refuses %s with 11170', (_, value) => {
    expect(code(value)).toBe(11170);
  });
});

import { describe, expect, it } from 'vitest';
import { createRouter } from '../../src/http/router.js';
import type { RouteDef } from '../../src/http/types.js';

const route = (method: RouteDef['method'], path: string): RouteDef => ({
  method,
  path,
  auth: 'app',
  body: 'none',
  handler: () => ({ body: path }),
});

describe('router', () => {
  const routes = [
    route('POST', '/1/classes/:table'),
    route('GET', '/1/classes/:table/:objectId'),
    route('GET', '/1/users/:objectId'),
    route('GET', '/1/users/me'),
    route('*', '/:secretKey/:name'),
  ];
  const router = createRouter(routes);

  it('matches parameters and decodes them', () => {
    const m = router.match('GET', '/1/classes/Game%20Score/abc');
    expect(m?.route.path).toBe('/1/classes/:table/:objectId');
    expect(m?.params).toEqual({ table: 'Game Score', objectId: 'abc' });
  });

  it('routes trailing and double slashes as if single', () => {
    expect(router.match('POST', '/1/classes/Game/')?.params).toEqual({ table: 'Game' });
    expect(router.match('POST', '//1//classes/Game')?.params).toEqual({ table: 'Game' });
  });

  it('prefers literal segments over parameters whatever the order', () => {
    expect(router.match('GET', '/1/users/me')?.route.path).toBe('/1/users/me');
    expect(router.match('GET', '/1/users/abc')?.route.path).toBe('/1/users/:objectId');
  });

  it('checks the method, with * matching any', () => {
    expect(router.match('DELETE', '/1/classes/Game')).toBeNull();
    expect(router.match('PATCH', '/key/fn')?.route.path).toBe('/:secretKey/:name');
  });

  it('refuses broken percent-encoding instead of throwing', () => {
    expect(router.match('GET', '/1/classes/%E0%A4%A/x')).toBeNull();
  });

  it('does not let a parameter named __proto__ reach the prototype', () => {
    const m = createRouter([route('GET', '/a/:__proto__')]).match('GET', '/a/x');
    expect(Object.getPrototypeOf(m!.params)).toBeNull();
  });
});

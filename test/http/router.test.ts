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

  it('keeps declaration order among routes with as many literals, and falls through a parameter that does not decode', () => {
    const r = createRouter([route('GET', '/a/:x/c'), route('GET', '/:y/b/c'), route('*', '/a/:z/:w')]);
    expect(r.match('GET', '/a/b/c')?.route.path).toBe('/a/:x/c');
    expect(r.match('GET', '/q/b/c')?.params).toEqual({ y: 'q' });
    expect(r.match('PUT', '/a/b/c')?.params).toEqual({ z: 'b', w: 'c' });
    // `/a/:x/c` matches its literals, but %E0 does not decode: the next candidate has its chance.
    expect(r.match('GET', '/a/%E0/c')).toBeNull();
    expect(createRouter([route('GET', '/a/:x/c'), route('GET', '/a/:x/:y')]).match('GET', '/a/ok/%41')?.params).toEqual({ x: 'ok', y: 'A' });
  });
});

import { describe, expect, it } from 'vitest';
import { createService } from '../../src/index.js';
import { memoryStorage } from '../../src/memory.js';
import { HOSTS } from '../helpers/hosts.js';
import { TEST_APP, startTestServer } from '../helpers/server.js';

/** The console's routes over real HTTP (its behaviour in a browser: test/browser/console.test.ts). */
describe('admin console routes', () => {
  it('is off unless the host enables it', async () => {
    const server = await startTestServer();
    try {
      expect((await fetch(`${server.url}/console`)).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it.each(Object.keys(HOSTS) as Array<keyof typeof HOSTS>)('under a mount prefix in %s, the page loads its assets and calls the API under that prefix', async (host) => {
    const service = createService({ storage: memoryStorage(), applications: [TEST_APP], console: { path: '/admin' }, brands: ['Bmob', 'Svc'] });
    const mounted = await HOSTS[host](service);
    try {
      const page = await fetch(`${mounted.url}/api/admin`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('<script src="/api/admin/app.js">');
      expect(html).toContain('data-api="/api" data-brand="Bmob"');
      const script = await fetch(`${mounted.url}/api/admin/app.js`);
      expect(script.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect((await script.text()).length).toBeGreaterThan(5000);
      expect((await fetch(`${mounted.url}/api/admin/app.css`)).headers.get('content-type')).toBe('text/css; charset=utf-8');
    } finally {
      await mounted.close();
      await service.close();
    }
  });

  it('refuses a path that is not a plain path', () => {
    expect(() => createService({ storage: memoryStorage(), applications: [TEST_APP], console: { path: '/a"><script>' } })).toThrow(/console path/);
  });
});

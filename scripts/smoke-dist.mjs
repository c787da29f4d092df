// Loads the built package both ways (ESM and CJS) and runs a real request through each, including a
// captcha render (font resolution differs between the two builds) and a deployed cloud function
// (its sandbox worker is a file of its own), and the admin console's built script. Run after `npm run build`.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const require = createRequire(import.meta.url);
const builds = {
  esm: { ...(await import('../dist/index.js')), ...(await import('../dist/memory.js')) },
  cjs: { ...require('../dist/index.cjs'), ...require('../dist/memory.cjs') },
};
const keys = { 'x-svc-application-id': 'a', 'x-svc-rest-api-key': 'r', 'content-type': 'application/json' };
for (const [name, lib] of Object.entries(builds)) {
  const service = lib.createService({
    storage: lib.memoryStorage(),
    applications: [{ applicationId: 'a', restApiKey: 'r', masterKey: 'm', secretKey: 's' }],
    functions: {},
    console: true,
  });
  const call = async (method, path, body) => {
    const res = await service.handle({ method, path, search: '', headers: keys, body: body ? Buffer.from(JSON.stringify(body)) : null });
    return { status: res.status, body: typeof res.body === 'string' ? JSON.parse(res.body) : res.body };
  };
  const created = await call('POST', '/1/classes/Smoke', { n: 1 });
  // A deployed function runs in the sandbox worker, which ships as its own file in each build.
  const master = { ...keys, 'x-svc-master-key': 'm' };
  const source = 'function onRequest(request, response) { response.send("sandboxed " + request.body.n) }';
  const deployed = await service.handle({ method: 'PUT', path: '/1/cloudCode/smoke', search: '', headers: master, body: Buffer.from(JSON.stringify({ language: 'node', source })) });
  const invoked = await call('POST', '/1/functions/smoke', { n: 2 });
  if (deployed.status !== 200 || invoked.body.result !== 'sandboxed 2') throw new Error(`[smoke] ${name} deployed function failed: ${JSON.stringify({ deployed: deployed.status, invoked })}`);
  // The console's script is built into dist/console/ and served from there.
  const script = await service.handle({ method: 'GET', path: '/console/app.js', search: '', headers: {}, body: null });
  if (script.status !== 200 || String(script.body).length < 5000) throw new Error(`[smoke] ${name} console script: ${script.status}`);
  // With no public URL configured the captcha URL is relative to the service (never the request's Host).
  const captcha = await call('POST', '/1/requestCaptcha', {});
  const image = await service.handle({ method: 'GET', path: '/1/captchaImage', search: new URL(captcha.body.captcha_url, 'http://smoke.invalid').search.slice(1), headers: {}, body: null });
  await service.close();
  if (created.status !== 201 || captcha.status !== 200 || image.status !== 200 || image.headers['content-type'] !== 'image/png') {
    throw new Error(`[smoke] ${name} build failed: ${JSON.stringify({ created, captcha, image: image.status })}`);
  }
  process.stdout.write(`[smoke] ${name} build ok\n`);
}

// The SQLite reader workers ship as their own files: a regex find (never run inline) over a file
// database goes through a worker in each build, and a zero budget answers 11090.
const sqliteBuilds = { esm: await import('../dist/sqlite.js'), cjs: require('../dist/sqlite.cjs') };
const dir = mkdtempSync(join(tmpdir(), 'svcbase-smoke-'));
try {
  for (const [name, lib] of Object.entries(sqliteBuilds)) {
    const storage = lib.openSqlite(join(dir, `${name}.db`));
    const ref = { namespace: 'smoke', className: 'Doc' };
    const at = { __type: 'Date', iso: '2026-01-01T00:00:00.000Z' };
    await storage.ensureColumns(ref, { text: { type: 'String' } });
    await storage.insert(ref, { objectId: 'a', createdAt: at, updatedAt: at, text: 'hello' });
    const plan = { where: { kind: 'regex', field: { column: 'text', path: [] }, pattern: '^hel', flags: '' }, order: [], skip: 0, limit: 10, projection: { kind: 'all' } };
    const found = await storage.find(ref, plan);
    const overBudget = await Promise.resolve(storage.find(ref, plan, { budgetMs: 0 })).then(() => null, (error) => error.code);
    await storage.close();
    if (found.length !== 1 || found[0].text !== 'hello' || overBudget !== 11090) {
      throw new Error(`[smoke] ${name} sqlite reader failed: ${JSON.stringify({ found, overBudget })}`);
    }
    process.stdout.write(`[smoke] ${name} sqlite reader ok\n`);
    // The checkpointer is a worker file too: with it running, the writer keeps only a backstop threshold.
    const Database = require('better-sqlite3');
    const db = new Database(join(dir, `${name}-checkpoint.db`));
    const withCheckpointer = lib.sqliteStorage({ database: db });
    const threshold = db.pragma('wal_autocheckpoint', { simple: true });
    await withCheckpointer.close();
    if (threshold !== 10000) throw new Error(`[smoke] ${name} sqlite checkpointer did not start (wal_autocheckpoint ${threshold})`);
    process.stdout.write(`[smoke] ${name} sqlite checkpointer ok\n`);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

// Loads the built package both ways (ESM and CJS) and runs a real request through each, including a
// captcha render (font resolution differs between the two builds). Run after `npm run build`.
import { createRequire } from 'node:module';

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
  });
  const call = async (method, path, body) => {
    const res = await service.handle({ method, path, search: '', headers: keys, body: body ? Buffer.from(JSON.stringify(body)) : null });
    return { status: res.status, body: typeof res.body === 'string' ? JSON.parse(res.body) : res.body };
  };
  const created = await call('POST', '/1/classes/Smoke', { n: 1 });
  const captcha = await call('POST', '/1/requestCaptcha', {});
  const image = await service.handle({ method: 'GET', path: '/1/captchaImage', search: new URL(captcha.body.captcha_url).search.slice(1), headers: {}, body: null });
  await service.close();
  if (created.status !== 201 || captcha.status !== 200 || image.status !== 200 || image.headers['content-type'] !== 'image/png') {
    throw new Error(`[smoke] ${name} build failed: ${JSON.stringify({ created, captcha, image: image.status })}`);
  }
  process.stdout.write(`[smoke] ${name} build ok\n`);
}

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, json, md5, now, signedHeaders, startFilesServer } from '../files/helpers.js';

/**
 * Issue 35 (item "authentication happens in http/auth only"): every credential form is checked by
 * http/, and routes declare what they accept (RouteDef.auth) instead of checking keys themselves.
 * Uploads used to be `auth: 'none'` routes that ran their own copy of the key checks: it read the
 * application id and REST key from the headers only, so a quick-app form carrying them as fields was
 * refused, and the route table (and /1/openapi.json) said uploads took no credentials.
 */
describe('issue 35: authentication in http/ only', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer(
      {},
      {
        functions: { definitions: { who: (request, response) => response.send(`${request.path}`) } },
      },
    );
  });
  afterAll(() => server.close());

  const upload = (path: string, headers: Record<string, string>, body: FormData | string) =>
    fetch(server.url + path, { method: 'POST', headers, body }).then(async (r) => ({ status: r.status, body: await json(r) }));

  it('issue 35: the upload routes declare their credentials (openapi lists them; they used to be public routes)', async () => {
    const doc = (await (await fetch(`${server.url}/1/openapi.json`)).json()) as { paths: Record<string, Record<string, { security: unknown[]; responses: Record<string, unknown> }>> };
    for (const path of ['/2/files/{name}', '/1/wechatApp/checkImg/{name}']) {
      const operation = doc.paths[path]?.['post'];
      expect(operation?.security.length, path).toBeGreaterThan(0);
      expect(operation?.responses['401'], path).toBeDefined();
    }
    const routes = server.service.routes.filter((route) => route.path === '/2/files/:name' || route.path === '/1/wechatApp/checkImg/:name');
    expect(routes.map((route) => route.auth)).toEqual(['upload', 'upload']);
  });

  it('issue 35: a multipart form carrying the application id and REST key as fields is authenticated like the headers', async () => {
    const form = new FormData();
    form.append('X-Bmob-Application-Id', TEST_APP.applicationId);
    form.append('X-Bmob-REST-API-Key', TEST_APP.restApiKey);
    form.append('file', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])]), 'f.png');
    expect(await upload('/2/files/f.png', {}, form)).toMatchObject({ status: 200, body: { filename: 'f.png' } });
    // A wrong REST key in the fields is refused as in the headers, and nothing is stored.
    const wrong = new FormData();
    wrong.append('X-Bmob-Application-Id', TEST_APP.applicationId);
    wrong.append('X-Bmob-REST-API-Key', 'not-the-key');
    wrong.append('file', new Blob([new Uint8Array([1, 2, 3])]), 'g.png');
    expect(await upload('/2/files/g.png', {}, wrong)).toEqual({ status: 401, body: { error: 'unauthorized' } });
    // No credentials at all: 401 too.
    const none = new FormData();
    none.append('file', new Blob([new Uint8Array([1, 2, 3])]), 'h.png');
    expect((await upload('/2/files/h.png', {}, none)).status).toBe(401);
  });

  it('issue 35: header credentials are checked before the form is read; form fields never override them', async () => {
    const ts = now();
    const nonce = 'AbCdEfGhIjKlMnOp';
    const form = new FormData();
    // Good credentials in the form, a wrong signature in the headers: the headers decide.
    form.append('X-Bmob-Application-Id', TEST_APP.applicationId);
    form.append('X-Bmob-REST-API-Key', TEST_APP.restApiKey);
    form.append('file', new Blob([new Uint8Array([1, 2, 3])]), 'x.bin');
    const res = await upload('/1/wechatApp/checkImg/x.jpg', signedHeaders(md5('wrong'), ts, nonce), form);
    expect(res).toEqual({ status: 401, body: { error: 'unauthorized' } });
  });

  it('issue 35: the plain-HTTP function path and the captcha link are route auth kinds, answering as before', async () => {
    const ok = await fetch(`${server.url}/${TEST_APP.secretKey}/who`);
    expect([ok.status, await ok.text()]).toEqual([200, `/${TEST_APP.secretKey}/who`]);
    const unknown = await fetch(`${server.url}/wrong-secret-key/who`);
    expect([unknown.status, ((await unknown.json()) as { code: number }).code]).toEqual([404, 11001]);
    // A session token header is not a credential of the plain path: it is ignored, not resolved.
    const withToken = await fetch(`${server.url}/${TEST_APP.secretKey}/who`, { headers: { 'X-Svc-Session-Token': 'r:nobody' } });
    expect(withToken.status).toBe(200);
    const image = await fetch(`${server.url}/1/captchaImage?secretKey=wrong&token=x`);
    expect([image.status, ((await image.json()) as { code: number }).code]).toEqual([400, 11010]);
    const routes = server.service.routes.filter((route) => route.path === '/:secretKey/:name' || route.path === '/1/captchaImage');
    expect(new Set(routes.map((route) => route.auth))).toEqual(new Set(['function-path', 'captcha-link']));
    // REST keys still reach the REST route.
    expect((await fetch(`${server.url}/1/functions/who`, { method: 'POST', headers: appHeaders() })).status).toBe(200);
  });
});

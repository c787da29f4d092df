import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CloudFunction } from '../../src/functions/index.js';
import { appHeaders } from '../helpers/server.js';
import { type FilesServer, json, startFilesServer } from '../files/helpers.js';

const definitions: Record<string, CloudFunction> = {
  delFile: (request, response, modules) => {
    modules.oFile.del({ url: String(request.body['url']) }, (err, data) => response.send(err ? { code: err.code } : JSON.parse(data!)));
  },
};

/** `oFile.del` deletes a stored file of the caller's application, by url or by path as the hosted module takes it. */
describe('oFile.del in a cloud function', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer({}, { functions: { definitions } });
  });
  afterAll(() => server.close());

  const upload = (name: string) => fetch(`${server.url}/2/files/${name}`, { method: 'POST', headers: appHeaders(), body: 'bytes' }).then(json);
  const del = async (url: string) => (await server.request('POST', '/1/functions/delFile', { body: { url } })).body.result;

  it('deletes by url and by the path after the host; a second delete is 11144', async () => {
    const first = await upload('a.txt');
    expect(await del(first.url)).toEqual({ msg: 'ok' });
    expect((await fetch(first.url)).status).toBe(404);
    expect(await del(first.url)).toEqual({ code: 11144 });
    const second = await upload('b.txt');
    const path = new URL(second.url).pathname.replace(/^\/files\/[^/]+\//, '');
    expect(await del(path)).toEqual({ msg: 'ok' });
    expect((await fetch(second.url)).status).toBe(404);
  });
});

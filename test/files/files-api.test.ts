import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import { internalCaller } from '../../src/app/caller.js';
import { TEST_APP } from '../helpers/server.js';
import { type FilesServer, startFilesServer } from './helpers.js';

const OTHER: ApplicationConfig = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };

describe('the typed files API (by caller)', () => {
  let server: FilesServer;
  beforeAll(async () => {
    server = await startFilesServer({ baseUrl: 'https://files.example.com', limits: { maxFileBytes: 100 } }, { applications: [TEST_APP, OTHER] });
  });
  afterAll(() => server.close());

  it('puts, reads (whole and by range), stats and deletes within the caller application', async () => {
    const api = server.service.registry.files!;
    const me = internalCaller(server.service.applications.get(TEST_APP.applicationId)!);
    const other = internalCaller(server.service.applications.get(OTHER.applicationId)!);
    const ref = await api.put(me, 'note.txt', 'hello api');
    expect(ref.url).toMatch(/^https:\/\/files\.example\.com\/files\/test_app\//);
    expect(new TextDecoder().decode((await api.get(me, ref.url))!.bytes)).toBe('hello api');
    expect(new TextDecoder().decode((await api.get(me, ref.url, { start: 6, end: 8 }))!.bytes)).toBe('api');
    expect(await api.stat(me, ref.url)).toMatchObject({ size: 9, filename: 'note.txt', contentType: 'text/plain; charset=utf-8' });
    // Another application's caller resolves the same url inside its own namespace: nothing there.
    expect(await api.get(other, ref.url)).toBeNull();
    expect(await api.delete(other, ref.url)).toBe(false);
    expect(await api.delete(me, ref.url)).toBe(true);
    expect(await api.stat(me, ref.url)).toBeNull();
  });

  it('applies the upload checks', async () => {
    const api = server.service.registry.files!;
    const me = internalCaller(server.service.applications.get(TEST_APP.applicationId)!);
    await expect(api.put(me, '../x.txt', 'x')).rejects.toMatchObject({ code: 11143 });
    await expect(api.put(me, 'big.txt', 'x'.repeat(101))).rejects.toMatchObject({ code: 11140 });
  });
});

import { describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import { silentLogger } from '../../src/core/logger.js';
import { dateValue } from '../../src/core/values.js';
import { memoryStorage } from '../../src/memory.js';
import { createUserStore } from '../../src/users/user-store.js';
import { createTableSetup } from '../../src/users/user-table.js';

const app = resolveApplication({ applicationId: 'app', restApiKey: 'r', masterKey: 'm' });
const now = dateValue(0);
const user = (objectId: string, fields: Record<string, string>) => ({ objectId, createdAt: now, updatedAt: now, ...fields });

describe('user store', () => {
  it('creates unique indexes once, so a write that skipped the pre-check still gets 202/203/209', async () => {
    const storage = memoryStorage();
    const ready = createTableSetup(storage, silentLogger);
    await Promise.all([ready(app), ready(app)]);
    const schema = await storage.getSchema({ namespace: 'app', className: '_User' });
    expect(schema?.indexes.map((i) => [i.name, i.unique])).toEqual([
      ['unique_username', true],
      ['unique_email', true],
      ['unique_mobilePhoneNumber', true],
    ]);
    const store = createUserStore(storage);
    await store.insert(app, user('u1', { username: 'ann', email: 'ann@example.com', mobilePhoneNumber: '13800138000' }));
    await expect(store.insert(app, user('u2', { username: 'ann' }))).rejects.toMatchObject({ code: 202 });
    await expect(store.insert(app, user('u3', { username: 'bob', email: 'ann@example.com' }))).rejects.toMatchObject({ code: 203 });
    await expect(store.insert(app, user('u4', { username: 'cat', mobilePhoneNumber: '13800138000' }))).rejects.toMatchObject({ code: 209 });
    await store.insert(app, user('u5', { username: 'dan' }));
    const set = (column: string, value: string) => [{ kind: 'set' as const, column, path: [], value }];
    await expect(store.update(app, 'u5', set('username', 'ann'), now)).rejects.toMatchObject({ code: 202 });
    expect((await store.update(app, 'u5', set('username', 'dan2'), now))?.username).toBe('dan2');
    expect(await store.update(app, 'nobody', set('username', 'x'), now)).toBeNull();
    expect((await store.findBy(app, 'email', 'ann@example.com'))?.objectId).toBe('u1');
    expect(await store.findBy(app, 'email', 'ANN@example.com')).toBeNull();
  });

  it('logs and skips an index that existing duplicates prevent', async () => {
    const storage = memoryStorage();
    const ref = { namespace: 'app', className: '_User' };
    await storage.ensureColumns(ref, { username: { type: 'String' } });
    await storage.insert(ref, user('a', { username: 'same' }));
    await storage.insert(ref, user('b', { username: 'same' }));
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) };
    await createTableSetup(storage, logger)(app);
    expect(warnings).toHaveLength(1);
    await expect(createUserStore(storage).assertAvailable(app, { username: 'same' })).rejects.toMatchObject({ code: 202 });
  });
});

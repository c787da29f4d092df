import { describe, expect, it } from 'vitest';
import { createAppRegistry } from '../../src/app/registry.js';
import { resolveApplication } from '../../src/app/application.js';

const keys = { restApiKey: 'r', masterKey: 'm' };

describe('applications', () => {
  it('derives a namespace from the applicationId with runs of other characters as one _', () => {
    expect(resolveApplication({ applicationId: 'dev-app-id', ...keys }).namespace).toBe('dev_app_id');
    expect(resolveApplication({ applicationId: '--a..b__c--', ...keys }).namespace).toBe('a_b_c');
  });

  // Regression: namespace `a__b` with table `C` and namespace `a` with table `b__C` named the same
  // physical table `a__b__C`.
  it('refuses namespaces that could make two applications share a physical table', () => {
    for (const namespace of ['a__b', 'a_', '_a', 'a-b', '']) {
      expect(() => resolveApplication({ applicationId: 'x', namespace, ...keys }), namespace).toThrow(/\[svcbase\] \[app\] invalid namespace/);
    }
    expect(resolveApplication({ applicationId: 'x', namespace: 'a_b', ...keys }).namespace).toBe('a_b');
  });

  it('refuses duplicate ids, shared namespaces, missing keys and unknown time zones', () => {
    expect(() => createAppRegistry([{ applicationId: 'a', ...keys }, { applicationId: 'a', ...keys }])).toThrow(/duplicate applicationId/);
    expect(() => createAppRegistry([{ applicationId: 'a-b', ...keys }, { applicationId: 'a_b', ...keys }])).toThrow(/share the storage namespace/);
    expect(() => resolveApplication({ applicationId: 'a', restApiKey: '', masterKey: 'm' })).toThrow(/restApiKey/);
    expect(() => resolveApplication({ applicationId: 'a', ...keys, settings: { timeZone: 'Mars/Olympus' } })).toThrow(/unknown time zone/);
    expect(() => createAppRegistry([])).toThrow(/at least one application/);
  });

  it('fills every setting with its default and keeps overrides', () => {
    const app = resolveApplication({ applicationId: 'a', ...keys, settings: { query: { maxLimit: 500 }, timeZone: 'Asia/Shanghai' } });
    expect(app.settings.query).toMatchObject({ maxLimit: 500, defaultLimit: 100, batchMax: 50 });
    expect(app.settings.sms.limits).toEqual({ perMinute: 1, perHour: 5, perDay: 10 });
    expect(Object.isFrozen(app.settings.query)).toBe(true);
  });

  it('D4: application ids and namespaces differing only in case are a configuration error', () => {
    expect(() => createAppRegistry([{ applicationId: 'Shop', ...keys }, { applicationId: 'shop', ...keys }])).toThrow(/duplicate applicationId 'shop'/);
    expect(() =>
      createAppRegistry([
        { applicationId: 'one', namespace: 'Shop', ...keys },
        { applicationId: 'two', namespace: 'shop', ...keys },
      ]),
    ).toThrow(/share the storage namespace/);
    expect(createAppRegistry([{ applicationId: 'one', ...keys }, { applicationId: 'two', ...keys }]).byId.size).toBe(2);
  });

  it('D8: schema limits default to 500 tables and 500 columns and are checked', () => {
    expect(resolveApplication({ applicationId: 'a', ...keys }).settings.schema).toEqual({ maxTables: 500, maxColumns: 500, locked: false });
    expect(() => resolveApplication({ applicationId: 'a', ...keys, settings: { schema: { maxTables: 0 } } })).toThrow(/maxTables/);
    expect(() => resolveApplication({ applicationId: 'a', ...keys, settings: { schema: { maxColumns: 901 } } })).toThrow(/maxColumns/);
    expect(() => resolveApplication({ applicationId: 'a', ...keys, settings: { schema: { maxColumns: 1.5 } } })).toThrow(/maxColumns/);
  });
});

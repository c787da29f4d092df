import { describe, expect, it } from 'vitest';
import { parseListQuery } from '../../src/query/parse.js';
import { compileFind, postgresDialect } from '../../src/query/sql/index.js';
import { translateRegex } from '../../src/query/sql/postgres-regex.js';
import { shortIdentifier } from '../../src/query/sql/long-identifier.js';
import { SETTINGS } from './helpers/context.js';

/** SQL text of the PostgreSQL dialect's additions (D60, D61, D64); the server runs them in test/postgres. */
describe('PostgreSQL dialect: SQL text', () => {
  it('spells a safe regex out as an ARE: explicit code ranges, anchors, word boundaries', () => {
    expect(translateRegex('^ab$', '')).toEqual({ are: '(?:^[\\u0061][\\u0062]$)', unitSensitive: false });
    expect(translateRegex('a', 'i').are).toBe('(?:[\\u0041\\u0061])');
    expect(translateRegex('\\d', '').are).toBe('(?:[\\u0030-\\u0039])');
    expect(translateRegex('^x', 'm').are).toBe('(?:(?:^|(?<=[\\u000a\\u000d\\u2028\\u2029]))[\\u0078])');
    expect(translateRegex('\\bx', '').are).toContain('(?<=[0-9A-Z_a-z])(?![0-9A-Z_a-z])');
    // '.' can match a surrogate unit: texts outside the BMP are matched as UTF-16 units (plane 15).
    const dot = translateRegex('.', '');
    expect(dot.unitSensitive).toBe(true);
    expect(dot.are).toContain('\\U000f0000-\\U000f07ff');
    // ARE caps bounds at 255: longer repetitions are chained.
    expect(translateRegex('a{300}', '').are).toBe('(?:(?:[\\u0061]){255}(?:[\\u0061]){45})');
    expect(translateRegex('a{2,600}', '').are).toBe('(?:(?:[\\u0061]){2}(?:[\\u0061]){0,255}(?:[\\u0061]){0,255}(?:[\\u0061]){0,88})');
  });

  it('refuses what the safe regex refuses, with the same codes', () => {
    expect(() => translateRegex('(a)\\1', '')).toThrow(expect.objectContaining({ code: 11021 }));
    expect(() => translateRegex('[', '')).toThrow(expect.objectContaining({ code: 102 }));
    expect(() => translateRegex('a', 'x')).toThrow(expect.objectContaining({ code: 102 }));
  });

  it('binds the ARE as a parameter, guarding unit-sensitive patterns with the BMP test', () => {
    const schema = { className: 'T', columns: { s: { type: 'String' as const } }, indexes: [] };
    const q = parseListQuery(new URLSearchParams({ where: JSON.stringify({ s: { $regex: '^.{2}$' } }) }), {
      className: 'T',
      schema: () => schema,
      settings: { ...SETTINGS, features: { ...SETTINGS.features, regex: true } },
    });
    if (q.kind !== 'find') throw new Error('expected a find');
    const compiled = compileFind('T', q.plan, { namespace: 'app', schema: () => schema }, postgresDialect);
    expect(compiled.sql).toContain(`(CASE WHEN t0."s" ~ '[\\U00010000-\\U0010ffff]' THEN (SELECT string_agg(`);
    expect(compiled.parameters).toContain(translateRegex('^.{2}$', '').are);
  });

  it('casts bound JSON text to jsonb through text', () => {
    const schema = { className: 'T', columns: { a: { type: 'Array' as const } }, indexes: [] };
    const q = parseListQuery(new URLSearchParams({ where: JSON.stringify({ a: [1, 2] }) }), { className: 'T', schema: () => schema, settings: SETTINGS });
    if (q.kind !== 'find') throw new Error('expected a find');
    expect(compileFind('T', q.plan, { namespace: 'app', schema: () => schema }, postgresDialect).sql).toContain('::text::jsonb');
  });

  it('hashes names past 63 bytes deterministically and leaves shorter ones alone', () => {
    expect(shortIdentifier('short', 63)).toBe('short');
    const long = `a${'b'.repeat(70)}`;
    expect(shortIdentifier(long, 63)).toBe(shortIdentifier(long, 63));
    expect(shortIdentifier(long, 63)).toHaveLength(63);
    expect(shortIdentifier(`${long}c`, 63)).not.toBe(shortIdentifier(long, 63));
    expect(postgresDialect.quoteIdent(long)).toBe(`"${shortIdentifier(long, 63)}"`);
  });
});

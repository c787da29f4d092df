import { describe, expect, it } from 'vitest';
import { resolveApplication } from '../../src/app/application.js';
import { fillTemplate, templateVariables } from '../../src/sms/template-text.js';
import { assertSmsSettings, resolveTemplate } from '../../src/sms/templates.js';
import { appConfig } from './harness.js';

const app = resolveApplication(appConfig('app1', {
  templates: [
    { name: 'pay', text: 'Card ${card} paid ${amount}, balance ${balance}.', kind: 'notification', approved: true },
    { name: 'draft', text: 'Hello ${name}', kind: 'notification', approved: false },
    { name: 'login', text: 'Login code ${code}, valid ${minutes} minutes.', kind: 'code', approved: true, validityMinutes: 10 },
  ],
}));

function codeOf(fn: () => unknown): number | undefined {
  try {
    fn();
  } catch (error) {
    return (error as { code: number }).code;
  }
  return undefined;
}

describe('templates', () => {
  it('resolves the built-in default code template when no name is given', () => {
    const t = resolveTemplate(app, undefined, 'code');
    expect(t.name).toBe('default');
    expect(t.validityMinutes).toBe(5);
  });

  it('unknown 10022, unapproved 11040, wrong kind 11041', () => {
    expect(codeOf(() => resolveTemplate(app, 'nope', 'code'))).toBe(10022);
    expect(codeOf(() => resolveTemplate(app, 'draft', 'notification'))).toBe(11040);
    expect(codeOf(() => resolveTemplate(app, 'pay', 'code'))).toBe(11041);
    expect(codeOf(() => resolveTemplate(app, 'login', 'notification'))).toBe(11041);
    expect(codeOf(() => resolveTemplate(app, 'default', 'notification'))).toBe(11041);
  });

  it('an application template named default replaces the built-in one', () => {
    const custom = resolveApplication(appConfig('a', { templates: [{ name: 'default', text: 'Code ${code}', kind: 'code', approved: true }] }));
    expect(resolveTemplate(custom, undefined, 'code').text).toBe('Code ${code}');
  });

  it('lists variables in order of first appearance', () => {
    expect(templateVariables('${b} and ${a} and ${b} but not $x or ${1x}')).toEqual(['b', 'a']);
  });

  it('fills strings and numbers', () => {
    const filled = fillTemplate('Card ${card} paid ${amount}, balance ${balance}.', { card: '6222', amount: 12.5, balance: 0 });
    expect(filled.text).toBe('Card 6222 paid 12.5, balance 0.');
    expect(Object.keys(filled.variables)).toEqual(['card', 'amount', 'balance']);
  });

  it('missing, unknown and non-scalar variables are 11042 naming them', () => {
    expect(() => fillTemplate('${a} ${b}', { a: 1 })).toThrow(/missing template variable\(s\): b/);
    expect(() => fillTemplate('${a}', { a: 1, c: 2 })).toThrow(/unknown template variable\(s\): c/);
    expect(codeOf(() => fillTemplate('${a}', { a: true }))).toBe(11042);
    expect(codeOf(() => fillTemplate('${a}', { a: { x: 1 } }))).toBe(11042);
    expect(codeOf(() => fillTemplate('${a}', { a: null }))).toBe(11042);
    expect(codeOf(() => fillTemplate('${a}', { a: Number.NaN }))).toBe(11042);
  });

  it('a variable named __proto__ stays data', () => {
    const filled = fillTemplate('x${__proto__}', JSON.parse('{"__proto__":"y"}') as Record<string, unknown>);
    expect(filled.text).toBe('xy');
  });

  it('checks settings at startup', () => {
    const bad = (sms: Record<string, unknown>) => () => assertSmsSettings(resolveApplication(appConfig('bad', sms)));
    expect(bad({ templates: [{ name: 'c', text: 'no code', kind: 'code', approved: true }] })).toThrow(/must contain \$\{code\}/);
    expect(bad({ templates: [{ name: 'c', text: '${code} ${x}', kind: 'code', approved: true }] })).toThrow(/only use/);
    expect(bad({ templates: [{ name: 'c', text: 'a', kind: 'notification', approved: true }, { name: 'c', text: 'b', kind: 'notification', approved: true }] })).toThrow(/duplicate/);
    expect(bad({ limits: { perMinute: 0 } })).toThrow(/perMinute/);
    expect(bad({ quota: -1 })).toThrow(/quota/);
    expect(bad({ maxCodeAttempts: 0 })).toThrow(/maxCodeAttempts/);
    expect(bad({ templates: [{ name: 'c', text: '${code}', kind: 'code', approved: true, validityMinutes: 0 }] })).toThrow(/validityMinutes/);
    expect(bad({ quota: 'unlimited' })).not.toThrow();
  });
});

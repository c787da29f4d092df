import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../../src/core/error-codes.js';

describe('coded error statuses', () => {
  it('fix 11.3: every coded error carries a 4xx status, never a 5xx', () => {
    for (const [name, entry] of Object.entries(ERROR_CODES)) {
      expect(entry.status, `${name} (${entry.code})`).toBeGreaterThanOrEqual(400);
      expect(entry.status, `${name} (${entry.code})`).toBeLessThan(500);
    }
  });

  it('fix 11.3: provider, mail and cloud-function failures are 424/403', () => {
    expect(ERROR_CODES.smsProviderFailed.status).toBe(424);
    expect(ERROR_CODES.mailSendFailed.status).toBe(424);
    expect(ERROR_CODES.functionTimeout.status).toBe(424);
    expect(ERROR_CODES.functionSuspended.status).toBe(403);
  });

  it('fix 11.3: docs/errors.md shows the HTTP status of every code', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    expect(doc).toContain('| code | HTTP | name | message |');
    for (const [name, entry] of Object.entries(ERROR_CODES)) {
      expect(doc, name).toContain(`| ${entry.code} | ${entry.status} | \`${name}\` |`);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../src/app/application.js';
import { countedLength, messageCount } from '../../src/sms/billing.js';

describe('SMS length and billing', () => {
  it.each([
    [1, 1], [64, 1], [70, 1], [71, 2], [100, 2], [134, 2], [135, 3], [201, 3], [202, 4], [268, 4], [269, 5],
  ])('counted length %i is billed as %i message(s)', (length, messages) => {
    expect(messageCount(length)).toBe(messages);
  });

  it('counts code points of text plus signature (the default signature is 6)', () => {
    expect([...DEFAULT_SETTINGS.sms.signature]).toHaveLength(6);
    expect(countedLength('a'.repeat(64), DEFAULT_SETTINGS.sms.signature)).toBe(70);
    expect(countedLength('验证码123456', '【比目科技】')).toBe(15);
    expect(countedLength('😀😀', '')).toBe(2);
  });

  it('text of 64 characters is 1 message, 65 is 2 with a 6-character signature', () => {
    const sig = '【svcb】';
    expect(messageCount(countedLength('x'.repeat(64), sig))).toBe(1);
    expect(messageCount(countedLength('x'.repeat(65), sig))).toBe(2);
    expect(messageCount(countedLength('x'.repeat(129), sig))).toBe(3);
    expect(messageCount(countedLength('x'.repeat(128), sig))).toBe(2);
  });
});

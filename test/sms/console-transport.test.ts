import { describe, expect, it } from 'vitest';
import { lineLogger } from '../../src/core/logger.js';
import { consoleSmsTransport } from '../../src/sms/console-transport.js';
import type { SmsMessage } from '../../src/sms/transport.js';

const message: SmsMessage = {
  to: '13800138000', text: 'Your code is 123456.', signature: '【svcb】', templateName: 'default', variables: { code: '123456' }, applicationId: 'app1', smsId: 7,
};

describe('consoleSmsTransport', () => {
  it('writes one line per message to the given sink', async () => {
    const lines: string[] = [];
    const transport = consoleSmsTransport({ write: (line) => lines.push(line) });
    expect(await transport.send(message)).toEqual({ providerId: 'console-1' });
    expect(lines).toEqual(['SMS console-1 to 13800138000 [app1/default] 【svcb】Your code is 123456.']);
  });

  it('defaults to the service logger passed with the send', async () => {
    const lines: string[] = [];
    await consoleSmsTransport().send(message, { logger: lineLogger((line) => lines.push(line)) });
    expect(lines).toEqual(['INFO SMS console-1 to 13800138000 [app1/default] 【svcb】Your code is 123456. {"smsId":7}']);
  });
});

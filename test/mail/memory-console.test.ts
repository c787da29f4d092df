import { describe, expect, it } from 'vitest';
import { consoleMailTransport, memoryMailTransport } from '../../src/mail/index.js';

describe('memoryMailTransport', () => {
  it('keeps messages and finds the newest link per recipient', async () => {
    const mail = memoryMailTransport();
    await mail.send({ to: 'a@example.com', subject: 's1', text: 'first https://x.test/1/verifyEmail?token=aa done' });
    await mail.send({ to: 'a@example.com', subject: 's2', text: 'second\nhttp://x.test/1/resetPassword?token=bb\n' });
    await mail.send({ to: 'b@example.com', subject: 's3', text: 'no link here' });
    expect(mail.messages).toHaveLength(3);
    expect(mail.last('a@example.com')?.subject).toBe('s2');
    expect(mail.lastLink('a@example.com')).toBe('http://x.test/1/resetPassword?token=bb');
    expect(mail.lastLink('b@example.com')).toBeUndefined();
    expect(mail.lastLink('nobody@example.com')).toBeUndefined();
    mail.clear();
    expect(mail.messages).toHaveLength(0);
  });

  it('fails the next sends on demand, then recovers', async () => {
    const mail = memoryMailTransport();
    mail.failNext(2, new Error('boom'));
    await expect(mail.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow('boom');
    await expect(mail.send({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow('boom');
    await mail.send({ to: 'a@example.com', subject: 's', text: 't' });
    expect(mail.messages).toHaveLength(1);
  });
});

describe('consoleMailTransport', () => {
  it('writes each mail line by line through the injected sink', async () => {
    const lines: string[] = [];
    const mail = consoleMailTransport({ write: (line) => lines.push(line) });
    await mail.send({ to: 'a@example.com', from: 'app@example.com', subject: 'Hi', text: 'line 1\r\nline 2' });
    expect(lines).toEqual(['--- mail to a@example.com from app@example.com', 'Subject: Hi', 'line 1', 'line 2', '--- end of mail']);
  });
});

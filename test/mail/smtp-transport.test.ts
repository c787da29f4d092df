import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { smtpMailTransport } from '../../src/mail/index.js';

interface Delivered {
  from: string;
  to: string[];
  raw: string;
}

/** A real SMTP server on loopback that keeps what it receives. */
async function startSmtp(options: { rejectRecipient?: string; auth?: { user: string; pass: string } } = {}) {
  const delivered: Delivered[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: options.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !options.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (options.auth && auth.username === options.auth.user && auth.password === options.auth.pass) return callback(null, { user: auth.username });
      return callback(new Error('invalid credentials'));
    },
    onRcptTo(address, _session, callback) {
      if (address.address === options.rejectRecipient) return callback(new Error('no such mailbox'));
      return callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        delivered.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return { port, delivered, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** Decodes the quoted-printable body nodemailer may use for long lines. */
function decodeQp(text: string): string {
  return text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}

describe('smtpMailTransport against a local SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  afterEach(async () => smtp?.close());

  describe('without authentication', () => {
    beforeEach(async () => {
      smtp = await startSmtp({ rejectRecipient: 'nobody@example.com' });
    });

    it('delivers text and HTML parts with the default sender', async () => {
      const mail = smtpMailTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true, from: 'App <no-reply@example.com>' });
      const link = 'http://127.0.0.1:1234/1/verifyEmail?token=' + 'ab'.repeat(32);
      await mail.send({ to: 'ann@example.com', subject: 'Verify your email', text: `Open ${link}`, html: `<p><a href="${link}">verify</a></p>` });
      await mail.close?.();
      expect(smtp.delivered).toHaveLength(1);
      const got = smtp.delivered[0]!;
      expect(got.from).toBe('no-reply@example.com');
      expect(got.to).toEqual(['ann@example.com']);
      expect(got.raw).toMatch(/^Subject: Verify your email\r?$/m);
      expect(got.raw).toContain('multipart/alternative');
      expect(decodeQp(got.raw)).toContain(link);
    });

    it('uses the message sender over the default', async () => {
      const mail = smtpMailTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true, from: 'default@example.com' });
      await mail.send({ to: 'ann@example.com', from: 'other@example.com', subject: 's', text: 't' });
      await mail.close?.();
      expect(smtp.delivered[0]!.from).toBe('other@example.com');
    });

    it('rejects when the server refuses the recipient', async () => {
      const mail = smtpMailTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true, from: 'app@example.com' });
      await expect(mail.send({ to: 'nobody@example.com', subject: 's', text: 't' })).rejects.toThrow();
      await mail.close?.();
      expect(smtp.delivered).toHaveLength(0);
    });
  });

  it('authenticates with user and password', async () => {
    smtp = await startSmtp({ auth: { user: 'mailer', pass: 's3cret' } });
    const good = smtpMailTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true, auth: { user: 'mailer', pass: 's3cret' }, from: 'a@example.com' });
    await good.send({ to: 'ann@example.com', subject: 's', text: 't' });
    await good.close?.();
    const bad = smtpMailTransport({ host: '127.0.0.1', port: smtp.port, ignoreTLS: true, auth: { user: 'mailer', pass: 'wrong' }, from: 'a@example.com' });
    await expect(bad.send({ to: 'ann@example.com', subject: 's', text: 't' })).rejects.toThrow();
    await bad.close?.();
    expect(smtp.delivered).toHaveLength(1);
  });
});

describe('smtpMailTransport configuration', () => {
  it('refuses a missing host or sender', () => {
    expect(() => smtpMailTransport({ host: '', from: 'a@example.com' })).toThrow(/\[svcbase\] \[mail\]/);
    expect(() => smtpMailTransport({ host: 'localhost', from: '' })).toThrow(/\[svcbase\] \[mail\]/);
  });

  it('accepts an injected nodemailer module (loaded lazily otherwise)', async () => {
    const sent: unknown[] = [];
    const mail = smtpMailTransport({
      host: 'smtp.example.com',
      from: 'a@example.com',
      nodemailer: {
        createTransport: (options) => {
          sent.push(options);
          return { sendMail: async (m) => (sent.push(m), { rejected: [] }), close: () => {} };
        },
      },
    });
    expect(sent).toHaveLength(0);
    await mail.send({ to: 'b@example.com', subject: 's', text: 't' });
    expect(sent[0]).toMatchObject({ host: 'smtp.example.com', port: 587, secure: false });
    expect(sent[1]).toMatchObject({ from: 'a@example.com', to: 'b@example.com' });
  });
});

import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import type { CaptchaRenderer } from '../../src/captcha/renderer.js';
import { sqliteKvStore } from '../../src/kv/sqlite-kv.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** A renderer whose "PNG" is just the answer's bytes, remembering the last answer. */
function fakeRenderer(): CaptchaRenderer & { last(): string } {
  let text = '';
  return {
    render(t) {
      text = t;
      return new TextEncoder().encode(`fake-png:${t}`);
    },
    last: () => text,
  };
}

const SECRET = 'one secret shared by every instance';
let database: Database.Database;
let servers: TestServer[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
  database?.close();
});

/** `secrets.length` services on one SQLite KvStore (two processes' view of one file), each with its captcha secret. */
async function startShared(...secrets: Array<string | undefined>) {
  database = new Database(':memory:');
  const kv = sqliteKvStore({ database });
  const renderer = fakeRenderer();
  for (const secret of secrets) {
    servers.push(await startTestServer({ kv, captcha: { renderer, ...(secret === undefined ? {} : { secret }) } }));
  }
  const dump = () => JSON.stringify(database.prepare('SELECT key, value FROM svc_kv').all());
  return { servers, renderer, dump };
}

const request = async (s: TestServer) => (await s.request('POST', '/1/requestCaptcha')).body.captcha_token as string;
const verify = (s: TestServer, token: string, code: string) => s.request('POST', '/1/verifyCaptcha', { body: { captcha_token: token, captcha_code: code } });

describe('D13: the captcha store holds keyed hashes only', () => {
  it('D13: neither the answer, the captcha_token, the image nor the validate_token is in the store', async () => {
    const { servers: [s], renderer, dump } = await startShared(SECRET);
    const token = await request(s!);
    const answer = renderer.last();
    const pending = dump();
    expect(pending).not.toContain(token);
    expect(pending).not.toContain(`fake-png:${answer}`);
    expect(pending).not.toContain(Buffer.from(`fake-png:${answer}`).toString('base64'));
    // The old, unkeyed digest (brute-forced from the file in 103 ms) is not what is stored.
    expect(pending).not.toContain(createHash('sha256').update(`${token}:${answer.toLowerCase()}`).digest('hex'));
    expect(pending).not.toMatch(new RegExp(`"answer\\\\?":\\\\?"${answer}`, 'i'));
    const res = await verify(s!, token, answer);
    expect(res.status).toBe(200);
    const validateToken = res.body.validate_token as string;
    expect(dump()).not.toContain(validateToken);
    expect(dump()).not.toContain(token);
  });

  it('D13: instances configured with the same secret verify each other captchas and share validate_tokens', async () => {
    const { servers: [a, b], renderer } = await startShared(SECRET, SECRET);
    const token = await request(a!);
    const image = await fetch((await a!.request('POST', '/1/requestCaptcha')).body.captcha_url.replace(a!.url, b!.url));
    expect(image.status).toBe(200);
    const res = await verify(b!, token, 'not-it');
    expect(res.body.code).toBe(11011); // judged wrong by B: it found A's captcha
    const second = await request(a!);
    const ok = await verify(b!, second, renderer.last());
    expect(ok.status).toBe(200);
    const app = a!.service.applications.get('test-app')!;
    expect(await a!.service.registry.captcha!.consumeValidateToken(app, ok.body.validate_token)).toBe(true);
    expect(await b!.service.registry.captcha!.consumeValidateToken(app, ok.body.validate_token)).toBe(false);
  });

  it('D13: by default the key is the application master key: instances of one configuration share captchas', async () => {
    const { servers: [a, b], renderer, dump } = await startShared(undefined, undefined);
    const token = await request(a!);
    expect(dump()).not.toContain(token);
    expect((await verify(b!, token, renderer.last())).status).toBe(200);
  });

  it('D13: an instance with another secret cannot use what the first stored', async () => {
    const { servers: [a, b], renderer } = await startShared(SECRET, 'a different secret of enough bytes');
    const token = await request(a!);
    expect((await verify(b!, token, renderer.last())).body.code).toBe(11010);
    expect((await verify(a!, token, renderer.last())).status).toBe(200);
  });

  it('D13: a captcha secret shorter than 16 bytes is a configuration error', async () => {
    await expect(startShared('short')).rejects.toThrow(/secret/);
  });
});

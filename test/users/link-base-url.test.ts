import { request as httpRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { appHeaders, TEST_APP } from '../helpers/server.js';
import { LINK_BASE, type UsersServer, startUsersServer } from './users-server.js';

let s: UsersServer | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

/** POSTs JSON with a forged Host header (fetch cannot set Host, node:http can). */
function postWithHost(url: string, path: string, host: string, body: unknown): Promise<{ status: number; body: any }> {
  const target = new URL(path, url);
  const data = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname, method: 'POST', headers: { ...appHeaders(TEST_APP), host, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

describe('D3: mailed links come from configuration, never from the Host header', () => {
  it('D3: a forged Host header does not change the reset link', async () => {
    s = await startUsersServer();
    await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    const res = await postWithHost(s.url, '/1/requestPasswordReset', 'attacker.example', { email: 'ann@example.com' });
    expect(res.body).toEqual({ msg: 'ok' });
    const link = s.linkOf('ann@example.com');
    expect(link.startsWith(`${LINK_BASE}/1/resetPassword?token=`)).toBe(true);
    expect(s.mail.messages.map((m) => `${m.text}${m.html}`).join('')).not.toContain('attacker.example');
  });

  it('D3: without users.linkBaseUrl, reset and verification requests answer 11101 and mail nothing', async () => {
    s = await startUsersServer({ linkBaseUrl: null });
    await s.signUp({ username: 'ann', password: 'pw', email: 'ann@example.com' });
    for (const email of ['ann@example.com', 'nobody@example.com']) {
      const res = await postWithHost(s.url, '/1/requestPasswordReset', 'attacker.example', { email });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe(11101);
    }
    expect(s.mail.messages).toHaveLength(0);
  });

  it('D3: email verification without users.linkBaseUrl refuses to start; a bad base URL too', async () => {
    await expect(startUsersServer({ linkBaseUrl: null, settings: { features: { emailVerification: true } } })).rejects.toThrow(/linkBaseUrl/);
    await expect(startUsersServer({ linkBaseUrl: 'attacker.example' })).rejects.toThrow(/linkBaseUrl/);
    await expect(startUsersServer({ linkBaseUrl: 'https://api.example.com/?x=1' })).rejects.toThrow(/linkBaseUrl/);
  });
});

import { type ECDH, createECDH, createPublicKey, createDecipheriv, generateKeyPairSync, hkdfSync, randomBytes, verify } from 'node:crypto';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One message the fake push services accepted, decrypted. */
export interface Delivered {
  readonly via: 'web' | 'fcm';
  readonly to: string;
  readonly data: Record<string, unknown>;
}

export interface FakePushServices {
  readonly url: string;
  readonly delivered: Delivered[];
  /** Requests refused for a bad signature, a bad token or an undecryptable body (each a test failure). */
  readonly refused: string[];
  /** Highest number of deliveries in flight at once. */
  readonly maxInFlight: () => number;
  /** A browser's subscription on this Web Push service (`gone`: answers 410, as for an unsubscribed browser). */
  subscribe(options?: { gone?: boolean }): { endpoint: string; keys: { p256dh: string; auth: string } };
  /** An FCM registration token (`gone`: answers 404 UNREGISTERED). */
  fcmToken(options?: { gone?: boolean }): string;
  /** The service account FCM accepts (its private key signs the token exchange). */
  readonly serviceAccount: { project_id: string; client_email: string; private_key: string; token_uri: string };
  readonly vapid: { subject: string; publicKey: string; privateKey: string };
  /** Token exchanges served. */
  readonly tokenExchanges: () => number;
  close(): Promise<void>;
}

const b64 = (value: string) => Buffer.from(value, 'base64url');

/** Verifies an ES256 or RS256 JWT: its signature under `key` and that it has not expired. */
function verifyJwt(jwt: string, key: Parameters<typeof verify>[2], alg: 'ES256' | 'RS256'): Record<string, unknown> | null {
  const [head, body, sig] = jwt.split('.');
  if (!head || !body || !sig) return null;
  if ((JSON.parse(b64(head).toString()) as { alg?: string }).alg !== alg) return null;
  const ok = verify('sha256', Buffer.from(`${head}.${body}`), alg === 'ES256' ? { key: key as never, dsaEncoding: 'ieee-p1363' } : key, b64(sig));
  if (!ok) return null;
  const claims = JSON.parse(b64(body).toString()) as Record<string, unknown>;
  return typeof claims.exp === 'number' && claims.exp * 1000 > Date.now() ? claims : null;
}

/** RFC 8291 / RFC 8188 aes128gcm, one record: what the user agent does with a Web Push body. */
function decryptWebPush(body: Buffer, ua: ECDH, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const idlen = body[20]!;
  const asPublic = body.subarray(21, 21 + idlen);
  const ciphertext = body.subarray(21 + idlen);
  const secret = ua.computeSecret(asPublic);
  const keyInfo = Buffer.concat([Buffer.from('WebPush: info\0'), ua.getPublicKey(), asPublic]);
  const ikm = Buffer.from(hkdfSync('sha256', secret, auth, keyInfo, 32));
  const cek = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: aes128gcm\0'), 16));
  const nonce = Buffer.from(hkdfSync('sha256', ikm, salt, Buffer.from('Content-Encoding: nonce\0'), 12));
  const decipher = createDecipheriv('aes-128-gcm', cek, nonce);
  decipher.setAuthTag(ciphertext.subarray(ciphertext.length - 16));
  const padded = Buffer.concat([decipher.update(ciphertext.subarray(0, ciphertext.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error('no final-record delimiter');
  return padded.subarray(0, end).toString('utf8');
}

/**
 * A local Web Push service and a local FCM (OAuth token endpoint + HTTP v1 send), on loopback, each
 * checking what the real one checks: the VAPID JWT (ES256, audience, expiry) and `k` key, then the
 * aes128gcm body decrypted with the subscription's private key; the service-account JWT (RS256)
 * before issuing an access token, then that bearer token on each send. Answers 410 / 404
 * UNREGISTERED for subscriptions and tokens marked gone. A 2 ms pause per delivery makes
 * concurrency visible.
 */
export async function startFakePushServices(): Promise<FakePushServices> {
  const delivered: Delivered[] = [];
  const refused: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let exchanges = 0;
  const subscriptions = new Map<string, { ua: ECDH; auth: Buffer; gone: boolean }>();
  const tokens = new Map<string, { gone: boolean }>();
  const accessTokens = new Set<string>();
  const vapidKeys = createECDH('prime256v1');
  vapidKeys.generateKeys();
  const vapid = { subject: 'mailto:ops@example.test', publicKey: vapidKeys.getPublicKey().toString('base64url'), privateKey: vapidKeys.getPrivateKey().toString('base64url') };
  const vapidJwk = { kty: 'EC', crv: 'P-256', x: vapidKeys.getPublicKey().subarray(1, 33).toString('base64url'), y: vapidKeys.getPublicKey().subarray(33).toString('base64url') };
  const vapidPublic = createPublicKey({ key: vapidJwk, format: 'jwk' });
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  let url = '';

  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  };
  const json = (res: ServerResponse, status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await read(req);
    const path = req.url ?? '';
    if (path.startsWith('/push/')) {
      const sub = subscriptions.get(path.slice(6));
      if (!sub) return json(res, 404, {});
      const auth = /^vapid t=([^,]+), k=(.+)$/.exec(req.headers.authorization ?? '');
      const claims = auth ? verifyJwt(auth[1]!, vapidPublic, 'ES256') : null;
      if (!auth || auth[2] !== vapid.publicKey || !claims || claims.aud !== url || claims.sub !== vapid.subject) {
        refused.push(`web: bad VAPID ${req.headers.authorization?.slice(0, 40)}`);
        return json(res, 403, {});
      }
      if (req.headers['content-encoding'] !== 'aes128gcm' || !req.headers.ttl) {
        refused.push('web: missing content-encoding or TTL');
        return json(res, 400, {});
      }
      if (sub.gone) return json(res, 410, { reason: 'unsubscribed' });
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      try {
        delivered.push({ via: 'web', to: path.slice(6), data: JSON.parse(decryptWebPush(body, sub.ua, sub.auth)) });
      } catch (error) {
        refused.push(`web: undecryptable: ${String(error)}`);
        return json(res, 400, {});
      }
      return res.writeHead(201).end();
    }
    if (path === '/token') {
      const form = new URLSearchParams(body.toString());
      const claims = verifyJwt(form.get('assertion') ?? '', rsa.publicKey, 'RS256');
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer' || !claims || claims.aud !== `${url}/token` || claims.scope !== 'https://www.googleapis.com/auth/firebase.messaging') {
        refused.push('fcm: bad assertion');
        return json(res, 400, { error: 'invalid_grant' });
      }
      exchanges++;
      const token = randomBytes(12).toString('hex');
      accessTokens.add(token);
      return json(res, 200, { access_token: token, expires_in: 3599, token_type: 'Bearer' });
    }
    if (path === '/v1/projects/fake-project/messages:send') {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      if (!bearer || !accessTokens.has(bearer)) return json(res, 401, { error: { code: 401, status: 'UNAUTHENTICATED' } });
      const message = (JSON.parse(body.toString()) as { message?: { token?: string; data?: Record<string, unknown> } }).message;
      const token = tokens.get(message?.token ?? '');
      if (!token || token.gone) return json(res, 404, { error: { code: 404, message: 'Requested entity was not found.', status: 'NOT_FOUND', details: [{ '@type': 'type.googleapis.com/google.firebase.fcm.v1.FcmError', errorCode: 'UNREGISTERED' }] } });
      if (!message?.data || Object.values(message.data).some((v) => typeof v !== 'string')) {
        refused.push('fcm: data values must be strings');
        return json(res, 400, {});
      }
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 2));
      inFlight--;
      delivered.push({ via: 'fcm', to: message.token!, data: message.data });
      return json(res, 200, { name: `projects/fake-project/messages/${randomBytes(6).toString('hex')}` });
    }
    return json(res, 404, {});
  };

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    delivered,
    refused,
    maxInFlight: () => maxInFlight,
    tokenExchanges: () => exchanges,
    vapid,
    serviceAccount: { project_id: 'fake-project', client_email: 'push@fake-project.iam.example.test', private_key: rsa.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), token_uri: `${url}/token` },
    subscribe(options = {}) {
      const ua = createECDH('prime256v1');
      ua.generateKeys();
      const id = randomBytes(8).toString('hex');
      const auth = randomBytes(16);
      subscriptions.set(id, { ua, auth, gone: options.gone ?? false });
      return { endpoint: `${url}/push/${id}`, keys: { p256dh: ua.getPublicKey().toString('base64url'), auth: auth.toString('base64url') } };
    },
    fcmToken(options = {}) {
      const token = `fcm-${randomBytes(10).toString('hex')}`;
      tokens.set(token, { gone: options.gone ?? false });
      return token;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

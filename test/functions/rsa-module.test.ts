import { constants, createPrivateKey, generateKeyPairSync, privateDecrypt, publicEncrypt, verify } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRSA } from '../../src/functions/rsa-module.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (error) {
    return (error as { code?: number; message: string }).code ?? (error as Error).message;
  }
  return 'no error';
};

describe('oCryptoRSA (node-rsa over node:crypto)', () => {
  const key = new NodeRSA({ b: 1024 });

  it('encrypts with OAEP and decrypts, splitting input longer than one block as node-rsa does', () => {
    expect(key.getKeySize()).toBe(1024);
    expect(key.getMaxMessageSize()).toBe(128 - 42);
    const text = 'héllo '.repeat(40); // 280 bytes: four blocks
    const sealed = key.encrypt(text, 'base64') as string;
    expect(Buffer.from(sealed, 'base64')).toHaveLength(4 * 128);
    expect(key.decrypt(sealed, 'utf8')).toBe(text);
    expect(key.decrypt(Buffer.from(sealed, 'base64'), 'utf8')).toBe(text);
    expect(key.decrypt(key.encrypt({ a: [1, 2] }), 'json')).toEqual({ a: [1, 2] });
    expect((key.encrypt('x') as Buffer).length).toBe(128);
  });

  it('speaks the standard schemes: node:crypto reads what it made, and it reads what node:crypto made', () => {
    const pem = key.exportKey('pkcs8-private-pem') as string;
    const block = Buffer.from(key.encrypt('interop', 'base64') as string, 'base64');
    expect(privateDecrypt({ key: createPrivateKey(pem), padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, block).toString()).toBe('interop');
    const theirs = publicEncrypt({ key: key.exportKey('public') as string, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, Buffer.from('back'));
    expect(key.decrypt(theirs, 'utf8')).toBe('back');
    const signature = key.sign('signed text', 'base64') as string;
    expect(verify('sha256', Buffer.from('signed text'), { key: key.exportKey('pkcs1-public-pem') as string, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(signature, 'base64'))).toBe(true);
  });

  it('signs and verifies in pkcs1 and pss with the chosen hash, and encrypts with the private key', () => {
    const message = 'a message';
    expect(key.verify(message, key.sign(message))).toBe(true);
    expect(key.verify('another', key.sign(message))).toBe(false);
    const pss = new NodeRSA(key.exportKey() as string, { signingScheme: 'pss-sha1' });
    const signature = pss.sign(message, 'hex') as string;
    expect(pss.verify(message, signature, 'utf8', 'hex')).toBe(true);
    expect(key.verify(message, signature, 'utf8', 'hex')).toBe(false);
    const sealed = key.encryptPrivate('from the owner', 'base64') as string;
    const reader = new NodeRSA(key.exportKey('pkcs8-public-pem') as string);
    expect(reader.decryptPublic(sealed, 'utf8')).toBe('from the owner');
  });

  it('imports and exports PEM and DER, and a public key cannot decrypt or sign', () => {
    const publicOnly = new NodeRSA().importKey(key.exportKey('pkcs1-public-der') as Buffer, 'pkcs1-public-der');
    expect([publicOnly.isPublic(true), publicOnly.isPrivate(), publicOnly.isEmpty(), new NodeRSA().isEmpty()]).toEqual([true, false, false, true]);
    expect(key.decrypt(publicOnly.encrypt('to the owner'), 'utf8')).toBe('to the owner');
    expect(codeOf(() => publicOnly.decrypt(key.encrypt('x')))).toBe(11005);
    expect(codeOf(() => publicOnly.sign('x'))).toBe(11005);
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 1024 });
    const imported = new NodeRSA(privateKey.export({ type: 'pkcs8', format: 'pem' }) as string, 'pkcs8-private-pem');
    expect(imported.isPrivate()).toBe(true);
    expect(imported.exportKey()).toBe(privateKey.export({ type: 'pkcs1', format: 'pem' }));
  });

  it('answers coded errors for bad sizes, formats, schemes, foreign blocks and refused pkcs1 decryption', () => {
    expect(codeOf(() => new NodeRSA({ b: 100 }))).toBe(11005);
    expect(codeOf(() => new NodeRSA({ b: 8192 }))).toBe(11005);
    expect(codeOf(() => new NodeRSA('not a key'))).toBe(11005);
    expect(codeOf(() => key.exportKey('pkcs9'))).toBe(11005);
    expect(codeOf(() => key.setOptions({ signingScheme: 'pss-md4' }))).toBe(11005);
    expect(codeOf(() => key.decrypt(Buffer.alloc(128)))).toBe(11005);
    expect(codeOf(() => key.decrypt(Buffer.alloc(100)))).toBe(11005);
    const legacy = new NodeRSA(key.exportKey() as string, { encryptionScheme: 'pkcs1' });
    expect(legacy.getMaxMessageSize()).toBe(128 - 11);
    // Encrypting for a pkcs1 peer works; decrypting pkcs1 with the private key is refused (Marvin).
    expect(codeOf(() => legacy.decrypt(legacy.encrypt('x')))).toBe(11005);
  });
});

describe('oCryptoRSA in functions, over HTTP', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      captcha: false,
      functions: {
        definitions: {
          hostRsa: (request, response, modules) => {
            const key = new modules.oCryptoRSA({ b: 512 });
            response.send({ back: key.decrypt(key.encrypt(String(request.body['text']), 'base64'), 'utf8') as string });
          },
        },
      },
    });
  });
  afterAll(() => server.close());

  it('runs the hosted example in a deployed function and in a host-defined one', async () => {
    const source = `function onRequest(request, response, modules) {
  var key = new modules.oCryptoRSA({ b: 512 });
  var sealed = key.encrypt(request.body.text, 'base64');
  var bytes = key.encrypt(request.body.text);
  var signature = key.sign(request.body.text, 'base64');
  var refused = null;
  try { new modules.oCryptoRSA(key.exportKey('public')).decrypt(sealed, 'utf8'); } catch (e) { refused = e.message; }
  response.end(JSON.stringify({ back: key.decrypt(sealed, 'utf8'), fromBytes: key.decrypt(bytes).toString('utf8'), isBytes: bytes instanceof Uint8Array,
    publicKey: key.exportKey('pkcs8-public-pem'), signature: signature, refused: refused }));
}`;
    expect((await server.request('PUT', '/1/cloudCode/rsa', { auth: 'master', body: { language: 'node', source } })).status).toBe(200);
    const res = await server.request('POST', '/1/functions/rsa', { body: { text: '你好, RSA' } });
    const result = JSON.parse(res.body.result as string);
    expect(result).toMatchObject({ back: '你好, RSA', fromBytes: '你好, RSA', isBytes: true, refused: expect.stringContaining('needs the private key') });
    expect(verify('sha256', Buffer.from('你好, RSA'), { key: result.publicKey, padding: constants.RSA_PKCS1_PADDING }, Buffer.from(result.signature, 'base64'))).toBe(true);
    expect((await server.request('POST', '/1/functions/hostRsa', { body: { text: 'host' } })).body).toEqual({ result: { back: 'host' } });
  });
});

import {
  type KeyObject,
  constants,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  privateDecrypt,
  privateEncrypt,
  publicDecrypt,
  publicEncrypt,
  sign as signBytes,
  verify as verifyBytes,
} from 'node:crypto';
import { svcError } from '../core/errors.js';

/**
 * `modules.oCryptoRSA`: the node-rsa API the hosted service bundles (rest-facts §7.2: `new
 * NodeRSA({b: 512})`, `encrypt(text, 'base64')`, `decrypt(x, 'utf8')`), over node:crypto. The key is
 * kept as PEM text, so the sandbox can hold it as a string and hand it back with each operation.
 */

/** What node-rsa calls a scheme: encryption `pkcs1_oaep` (its default) or `pkcs1`; signing `<scheme>-<hash>`. */
export interface RsaOptions {
  readonly encryptionScheme: 'pkcs1_oaep' | 'pkcs1';
  readonly signingScheme: { readonly scheme: 'pkcs1' | 'pss'; readonly hash: string };
}

/** A NodeRSA object's whole state: its key (PEM; private keys as PKCS#1, public ones as SPKI) and options. */
export interface RsaState {
  readonly pem: string | null;
  readonly options: RsaOptions;
}

export const DEFAULT_RSA_OPTIONS: RsaOptions = { encryptionScheme: 'pkcs1_oaep', signingScheme: { scheme: 'pkcs1', hash: 'sha256' } };

const MIN_BITS = 512;
const MAX_BITS = 4096;
/** Largest input of one encrypt/decrypt/sign call: node-rsa splits long input into blocks. */
const MAX_INPUT_BYTES = 1024 * 1024;
const HASHES: ReadonlySet<string> = new Set(['md5', 'ripemd160', 'sha1', 'sha224', 'sha256', 'sha384', 'sha512']);
const OUTPUT_ENCODINGS: ReadonlySet<string> = new Set(['buffer', 'base64', 'hex', 'binary', 'latin1', 'utf8', 'utf-8', 'json']);
/** node-rsa's PSS salt length. */
const PSS_SALT_BYTES = 20;

function fail(message: string): never {
  throw svcError('invalidParameter', `oCryptoRSA: ${message}`);
}

export function generateRsaKey(bits: unknown): string {
  const size = bits === undefined ? 2048 : Number(bits);
  if (!Number.isSafeInteger(size) || size < MIN_BITS || size > MAX_BITS || size % 8 !== 0) fail(`key size must be a multiple of 8 from ${MIN_BITS} to ${MAX_BITS} bits`);
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: size, publicExponent: 65537 });
  return privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
}

/** A key in any of node-rsa's import formats (PEM text, or DER bytes with a `-der` format), as canonical PEM. */
export function importRsaKey(keyData: string | Uint8Array, format?: string): string {
  const wanted = format ?? '';
  if (wanted !== '' && !/^(pkcs1|pkcs8|private|public)(-(private|public))?(-(pem|der))?$|^openssh-(private|public)$/.test(wanted)) fail(`unknown key format ${wanted.slice(0, 40)}`);
  const der = wanted.endsWith('-der');
  const pkcs8 = wanted.startsWith('pkcs8');
  const publicOnly = wanted.includes('public');
  let key: KeyObject;
  try {
    if (der) {
      const bytes = Buffer.from(keyData as Uint8Array);
      key = publicOnly ? createPublicKey({ key: bytes, format: 'der', type: pkcs8 ? 'spki' : 'pkcs1' }) : createPrivateKey({ key: bytes, format: 'der', type: pkcs8 ? 'pkcs8' : 'pkcs1' });
    } else {
      const text = typeof keyData === 'string' ? keyData : Buffer.from(keyData).toString('utf8');
      key = publicOnly || !/PRIVATE KEY-----/.test(text) ? createPublicKey(text) : createPrivateKey(text);
    }
  } catch {
    return fail('the key could not be read');
  }
  if (key.asymmetricKeyType !== 'rsa') fail('not an RSA key');
  return key.type === 'private' ? (key.export({ type: 'pkcs1', format: 'pem' }) as string) : (key.export({ type: 'spki', format: 'pem' }) as string);
}

/** The public half (createPublicKey refuses a key object that is already public). */
function publicOf(key: KeyObject): KeyObject {
  return key.type === 'public' ? key : createPublicKey(key);
}

function keyOf(state: RsaState, need: 'private' | 'any'): KeyObject {
  if (!state.pem) return fail('no key: generate or import one first');
  const isPrivate = state.pem.includes('PRIVATE KEY');
  if (need === 'private' && !isPrivate) fail('this operation needs the private key');
  return isPrivate ? createPrivateKey(state.pem) : createPublicKey(state.pem);
}

/** `exportKey(format)`: `pkcs1`/`pkcs8` × `private`/`public` × `pem`/`der` (default `pkcs1-private-pem`). */
export function exportRsaKey(state: RsaState, format = 'pkcs1-private-pem'): string | Buffer {
  const match = /^(pkcs1|pkcs8|private|public)(?:-(private|public))?(?:-(pem|der))?$/.exec(format);
  if (!match) return fail(`unknown export format ${format.slice(0, 40)}`);
  const [, first, second, encoding = 'pem'] = match;
  const standard = first === 'pkcs8' ? 'pkcs8' : 'pkcs1';
  const wantsPublic = first === 'public' || second === 'public';
  const key = keyOf(state, wantsPublic ? 'any' : 'private');
  const exported = wantsPublic ? publicOf(key) : key;
  const type = wantsPublic ? (standard === 'pkcs8' ? 'spki' : 'pkcs1') : standard;
  return encoding === 'der' ? exported.export({ type, format: 'der' }) : (exported.export({ type, format: 'pem' }) as string);
}

export function rsaKeyInfo(state: RsaState): { isPrivate: boolean; isPublic: boolean; bits: number } {
  if (!state.pem) return { isPrivate: false, isPublic: false, bits: 0 };
  const key = keyOf(state, 'any');
  return { isPrivate: key.type === 'private', isPublic: true, bits: key.asymmetricKeyDetails?.modulusLength ?? 0 };
}

/** node-rsa's rules for data: bytes as they are, strings in their encoding, anything else as JSON. */
export function rsaInput(data: unknown, sourceEncoding = 'utf8'): Buffer {
  let bytes: Buffer;
  if (data instanceof Uint8Array) bytes = Buffer.from(data);
  else if (typeof data === 'string') {
    if (!Buffer.isEncoding(sourceEncoding)) fail(`unknown source encoding ${String(sourceEncoding).slice(0, 20)}`);
    bytes = Buffer.from(data, sourceEncoding);
  } else if (typeof data === 'number' || typeof data === 'boolean') bytes = Buffer.from(String(data));
  else if (data !== null && typeof data === 'object') bytes = Buffer.from(JSON.stringify(data));
  else return fail('nothing to process');
  if (bytes.length > MAX_INPUT_BYTES) fail(`input larger than ${MAX_INPUT_BYTES} bytes`);
  return bytes;
}

/** Bytes in node-rsa's output encodings: a Buffer for `buffer` (the default), a string, or parsed JSON. */
export function rsaOutput(bytes: Buffer, encoding = 'buffer'): Buffer | string | unknown {
  if (!OUTPUT_ENCODINGS.has(encoding)) fail(`unknown encoding ${String(encoding).slice(0, 20)}`);
  if (encoding === 'buffer') return bytes;
  if (encoding === 'json') {
    try {
      return JSON.parse(bytes.toString('utf8')) as unknown;
    } catch {
      return fail('the decrypted data is not JSON');
    }
  }
  return bytes.toString(encoding as BufferEncoding);
}

function blocks(bytes: Buffer, size: number): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out.length > 0 ? out : [Buffer.alloc(0)];
}

/**
 * `encrypt` (public key, the options' scheme) or `encryptPrivate` (private key, PKCS#1 v1.5 type 1):
 * input longer than one block is split, as node-rsa does, and the blocks joined.
 */
export function rsaEncrypt(state: RsaState, data: Buffer, withPrivate: boolean): Buffer {
  const key = keyOf(state, withPrivate ? 'private' : 'any');
  const size = (key.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
  const oaep = !withPrivate && state.options.encryptionScheme === 'pkcs1_oaep';
  const room = oaep ? size - 42 : size - 11;
  const padding = oaep ? constants.RSA_PKCS1_OAEP_PADDING : constants.RSA_PKCS1_PADDING;
  return Buffer.concat(
    blocks(data, room).map((block) => (withPrivate ? privateEncrypt({ key, padding }, block) : publicEncrypt({ key, padding, oaepHash: 'sha1' }, block))),
  );
}

/** `decrypt` (private key) or `decryptPublic` (public key, of `encryptPrivate`'s output). */
export function rsaDecrypt(state: RsaState, data: Buffer, withPublic: boolean): Buffer {
  const key = keyOf(state, withPublic ? 'any' : 'private');
  const size = (key.asymmetricKeyDetails?.modulusLength ?? 0) / 8;
  if (data.length === 0 || data.length % size !== 0) fail('the data is not whole blocks of this key');
  const oaep = !withPublic && state.options.encryptionScheme === 'pkcs1_oaep';
  // Node refuses PKCS#1 v1.5 decryption with a private key (the Marvin timing attack, CVE-2023-46809).
  if (!withPublic && !oaep) fail('pkcs1 decryption with the private key is refused (use pkcs1_oaep)');
  try {
    return Buffer.concat(
      blocks(data, size).map((block) =>
        withPublic ? publicDecrypt({ key: publicOf(key), padding: constants.RSA_PKCS1_PADDING }, block) : privateDecrypt({ key, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha1' }, block),
      ),
    );
  } catch {
    return fail('the data could not be decrypted with this key');
  }
}

function signingOptions(state: RsaState, key: KeyObject) {
  const { scheme, hash } = state.options.signingScheme;
  return { hash, key: { key, padding: scheme === 'pss' ? constants.RSA_PKCS1_PSS_PADDING : constants.RSA_PKCS1_PADDING, saltLength: PSS_SALT_BYTES } };
}

export function rsaSign(state: RsaState, data: Buffer): Buffer {
  const { hash, key } = signingOptions(state, keyOf(state, 'private'));
  return signBytes(hash, data, key);
}

export function rsaVerify(state: RsaState, data: Buffer, signature: Buffer): boolean {
  const key = keyOf(state, 'any');
  const options = signingOptions(state, publicOf(key));
  try {
    return verifyBytes(options.hash, data, options.key, signature);
  } catch {
    return false;
  }
}

/** `setOptions({encryptionScheme, signingScheme})`: node-rsa's names, `'pkcs1-sha256'` or `{scheme, hash}`. */
export function rsaOptions(current: RsaOptions, given: unknown): RsaOptions {
  if (given === null || typeof given !== 'object') return fail('options must be an object');
  const { encryptionScheme, signingScheme } = given as { encryptionScheme?: unknown; signingScheme?: unknown };
  let next = current;
  if (encryptionScheme !== undefined) {
    const name = typeof encryptionScheme === 'object' && encryptionScheme !== null ? (encryptionScheme as { scheme?: unknown }).scheme : encryptionScheme;
    if (name !== 'pkcs1_oaep' && name !== 'pkcs1') fail('encryptionScheme is pkcs1_oaep or pkcs1');
    next = { ...next, encryptionScheme: name };
  }
  if (signingScheme !== undefined) {
    const parts =
      typeof signingScheme === 'string'
        ? signingScheme.includes('-')
          ? signingScheme.split('-')
          : HASHES.has(signingScheme) ? [next.signingScheme.scheme, signingScheme] : [signingScheme, 'sha256']
        : [(signingScheme as { scheme?: unknown }).scheme ?? next.signingScheme.scheme, (signingScheme as { hash?: unknown }).hash ?? 'sha256'];
    const [scheme, hash] = parts as [unknown, unknown];
    if ((scheme !== 'pkcs1' && scheme !== 'pss') || typeof hash !== 'string' || !HASHES.has(hash)) fail('signingScheme is pkcs1 or pss with md5, ripemd160, sha1, sha224, sha256, sha384 or sha512');
    next = { ...next, signingScheme: { scheme, hash } };
  }
  return next;
}

/** A state the sandbox handed back: re-checked, since it crossed from untrusted code. */
export function rsaStateOf(value: unknown): RsaState {
  const given = (value ?? {}) as { pem?: unknown; options?: unknown };
  const pem = typeof given.pem === 'string' ? importRsaKey(given.pem) : null;
  return { pem, options: given.options === undefined ? DEFAULT_RSA_OPTIONS : rsaOptions(DEFAULT_RSA_OPTIONS, given.options) };
}

function optionalText(value: unknown, what: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fail(`${what} must be a string`);
  return value;
}

function bytesOrBase64(value: unknown, encoding = 'base64'): Buffer {
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value === 'string' && Buffer.isEncoding(encoding)) return Buffer.from(value, encoding);
  return fail('expected bytes or an encoded string');
}

/**
 * One NodeRSA method on a state: the new state and the method's value (bytes as Buffers). The
 * sandbox's NodeRSA and the host-defined functions' class both go through here.
 */
export function rsaCall(op: string, state: RsaState, args: readonly unknown[]): { state: RsaState; value: unknown } {
  switch (op) {
    case 'generate':
      return { state: { ...state, pem: generateRsaKey(args[0]) }, value: null };
    case 'import': {
      const key = args[0];
      if (typeof key !== 'string' && !(key instanceof Uint8Array)) return fail('importKey needs the key as text or bytes');
      return { state: { ...state, pem: importRsaKey(key, optionalText(args[1], 'format')) }, value: null };
    }
    case 'export':
      return { state, value: exportRsaKey(state, optionalText(args[0], 'format')) };
    case 'info':
      return { state, value: rsaKeyInfo(state) };
    case 'options':
      return { state: { ...state, options: rsaOptions(state.options, args[0]) }, value: null };
    case 'encrypt':
    case 'encryptPrivate':
      return { state, value: rsaOutput(rsaEncrypt(state, rsaInput(args[0], optionalText(args[2], 'sourceEncoding')), op === 'encryptPrivate'), optionalText(args[1], 'encoding')) };
    case 'decrypt':
    case 'decryptPublic':
      return { state, value: rsaOutput(rsaDecrypt(state, bytesOrBase64(args[0]), op === 'decryptPublic'), optionalText(args[1], 'encoding')) };
    case 'sign':
      return { state, value: rsaOutput(rsaSign(state, rsaInput(args[0], optionalText(args[2], 'sourceEncoding'))), optionalText(args[1], 'encoding')) };
    case 'verify':
      return { state, value: rsaVerify(state, rsaInput(args[0], optionalText(args[2], 'sourceEncoding')), bytesOrBase64(args[1], optionalText(args[3], 'signatureEncoding'))) };
    default:
      return fail(`no method ${op.slice(0, 32)}`);
  }
}

/** node-rsa's constructor arguments: `({b})` generates, a key imports, an object after the key sets options. */
export function rsaConstruct(key: unknown, format: unknown, options: unknown): RsaState {
  let state: RsaState = { pem: null, options: DEFAULT_RSA_OPTIONS };
  const opts = typeof format === 'object' && format !== null ? format : options;
  if (opts !== undefined && opts !== null) state = rsaCall('options', state, [opts]).state;
  if (key instanceof Uint8Array || typeof key === 'string') state = rsaCall('import', state, [key, typeof format === 'string' ? format : undefined]).state;
  else if (key !== null && typeof key === 'object' && 'b' in key) state = rsaCall('generate', state, [(key as { b: unknown }).b]).state;
  else if (key !== undefined && key !== null) fail('the first argument is a key or {b: bits}');
  return state;
}

/** The NodeRSA class host-defined functions get as `modules.oCryptoRSA` (node-rsa's methods). */
export class NodeRSA {
  #state: RsaState;

  constructor(key?: string | Uint8Array | { b: number }, format?: string | Record<string, unknown>, options?: Record<string, unknown>) {
    this.#state = rsaConstruct(key, format, options);
  }

  #call(op: string, args: readonly unknown[]): unknown {
    const { state, value } = rsaCall(op, this.#state, args);
    this.#state = state;
    return value;
  }

  generateKeyPair(bits?: number): this {
    this.#call('generate', [bits]);
    return this;
  }
  importKey(key: string | Uint8Array, format?: string): this {
    this.#call('import', [key, format]);
    return this;
  }
  exportKey(format?: string): string | Buffer {
    return this.#call('export', [format]) as string | Buffer;
  }
  setOptions(options: Record<string, unknown>): void {
    this.#call('options', [options]);
  }
  isPrivate(): boolean {
    return rsaKeyInfo(this.#state).isPrivate;
  }
  /** With `strict`, true only for a key that has no private part. */
  isPublic(strict = false): boolean {
    const info = rsaKeyInfo(this.#state);
    return strict ? info.isPublic && !info.isPrivate : info.isPublic;
  }
  isEmpty(): boolean {
    return this.#state.pem === null;
  }
  getKeySize(): number {
    return rsaKeyInfo(this.#state).bits;
  }
  getMaxMessageSize(): number {
    const bytes = rsaKeyInfo(this.#state).bits / 8;
    return this.#state.options.encryptionScheme === 'pkcs1_oaep' ? bytes - 42 : bytes - 11;
  }
  encrypt(data: unknown, encoding?: string, sourceEncoding?: string): Buffer | string {
    return this.#call('encrypt', [data, encoding, sourceEncoding]) as Buffer | string;
  }
  encryptPrivate(data: unknown, encoding?: string, sourceEncoding?: string): Buffer | string {
    return this.#call('encryptPrivate', [data, encoding, sourceEncoding]) as Buffer | string;
  }
  decrypt(data: Uint8Array | string, encoding?: string): unknown {
    return this.#call('decrypt', [data, encoding]);
  }
  decryptPublic(data: Uint8Array | string, encoding?: string): unknown {
    return this.#call('decryptPublic', [data, encoding]);
  }
  sign(data: unknown, encoding?: string, sourceEncoding?: string): Buffer | string {
    return this.#call('sign', [data, encoding, sourceEncoding]) as Buffer | string;
  }
  verify(data: unknown, signature: Uint8Array | string, sourceEncoding?: string, signatureEncoding?: string): boolean {
    return this.#call('verify', [data, signature, sourceEncoding, signatureEncoding]) as boolean;
  }
}

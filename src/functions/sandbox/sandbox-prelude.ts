/**
 * The JavaScript that runs inside the sandbox before a deployed function: `request`, `response`,
 * `modules` (each method a bridge to the host's module: callback style, the callback's `data` a JSON
 * string as the hosted service passes it, or a promise of the parsed value), `console`, and an
 * in-sandbox `oEvent`. Only four host functions cross the boundary, each taking and returning JSON
 * text: `__host` (asynchronous module calls), `__hostSync` (setHeader, hashes, logs, the request's
 * headers and raw body), `__respond` and `__fail`. Nothing of the host's objects is ever handed to
 * the function. The prelude evaluates to the function that starts one invocation from the JSON of
 * the request's method, body, query and path (sandbox-request.ts).
 */
export const SANDBOX_PRELUDE = String.raw`
'use strict';
(function (global) {
  const host = global.__host, hostSync = global.__hostSync, respond = global.__respond, fail = global.__fail;
  delete global.__host; delete global.__hostSync; delete global.__respond; delete global.__fail;
  const call = (module, method, args) => host(module, method, JSON.stringify(args)).then((text) => {
    const answer = JSON.parse(text);
    if (answer.err) throw answer.err;
    return answer.ok;
  });
  /** What a callback or a timer threw: the invocation's failure, as an uncaught exception ends a Node.js function. */
  const uncaught = (e) => fail(String(e && e.message || e));
  const callbackStyle = (module, method) => function (...args) {
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : null;
    const pending = call(module, method, args);
    if (!callback) return pending;
    pending.then((value) => callback(null, JSON.stringify(value)), (err) => callback(err)).then(undefined, uncaught);
  };
  const promiseStyle = (module, method) => (...args) => call(module, method, args);
  /** A synchronous host call: its JSON answer, or the Error it answered thrown here. */
  const sync = (kind, args) => {
    const answer = hostSync(kind, JSON.stringify(args));
    if (answer instanceof Error) throw answer;
    return answer;
  };
  const BRIDGED = global.__bridged;
  delete global.__bridged;
  const modules = {};
  for (const module of Object.keys(BRIDGED)) {
    const methods = {};
    for (const [method, style] of Object.entries(BRIDGED[module])) methods[method] = style === 'promise' ? promiseStyle(module, method) : callbackStyle(module, method);
    modules[module] = methods;
  }
  const http = (method) => function (options, callback) {
    const pending = call('oHttp', method, [options]);
    if (typeof callback !== 'function') return pending;
    pending.then((res) => callback(null, res, res.body), (err) => callback(err)).then(undefined, uncaught);
  };
  modules.oHttp = { get: http('get'), post: http('post') };
  modules.oData.setHeader = (headers) => { sync('setHeader', [headers]); };
  modules.oCrypto = {
    createHash: (algorithm) => ({ update: (text) => ({ digest: (encoding) => JSON.parse(sync('hash', [algorithm, String(text), encoding])) }) }),
  };
  const log = (level) => (...parts) => { hostSync('log', JSON.stringify([level, parts.map((p) => typeof p === 'string' ? p : JSON.stringify(p)).join(' ')])); };
  global.console = { log: log('info'), info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') };
  modules.oLog = { log: (message) => log('info')(message) };

  // Bytes cross the boundary as {__bytes: base64}: QuickJS has Uint8Array but no Buffer or btoa.
  const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  const toBase64 = (bytes) => {
    let out = '';
    for (let i = 0; i < bytes.length; i += 3) {
      const n = (bytes[i] << 16) | ((bytes[i + 1] || 0) << 8) | (bytes[i + 2] || 0);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (i + 1 < bytes.length ? B64[(n >> 6) & 63] : '=') + (i + 2 < bytes.length ? B64[n & 63] : '=');
    }
    return out;
  };
  const fromBase64 = (text) => {
    const clean = text.replace(/=+$/, '');
    const out = new Uint8Array(Math.floor(clean.length * 3 / 4));
    let bits = 0, value = 0, at = 0;
    for (const ch of clean) {
      value = (value << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out[at++] = (value >> bits) & 255; }
    }
    return out;
  };
  const bytesArg = (value) => value instanceof Uint8Array ? { __bytes: toBase64(value) } : String(value);
  const bytesOf = (text) => bytesFromBase64(JSON.parse(text).__bytes);
  const bytesFromBase64 = (base64) => {
    const bytes = fromBase64(base64);
    // Buffer's common toString encodings, so code written for the hosted Buffers keeps working.
    bytes.toString = function (encoding) {
      if (encoding === 'base64') return toBase64(this);
      if (encoding === 'hex') return Array.from(this, (b) => b.toString(16).padStart(2, '0')).join('');
      if (encoding === 'latin1' || encoding === 'binary') return Array.from(this, (b) => String.fromCharCode(b)).join('');
      return decodeUtf8(this);
    };
    return bytes;
  };
  const decodeUtf8 = (bytes) => {
    let out = '';
    for (let i = 0; i < bytes.length; ) {
      const b = bytes[i++];
      let code = b;
      if (b >= 0xf0) code = ((b & 7) << 18) | ((bytes[i++] & 63) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
      else if (b >= 0xe0) code = ((b & 15) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
      else if (b >= 0xc0) code = ((b & 31) << 6) | (bytes[i++] & 63);
      out += String.fromCodePoint(code);
    }
    return out;
  };
  modules.oGzip = {
    gzip: (data) => { try { return Promise.resolve(bytesOf(sync('gzip', [bytesArg(data)]))); } catch (e) { return Promise.reject(e); } },
    ungzip: (data) => { try { return Promise.resolve(bytesOf(sync('ungzip', [bytesArg(data)]))); } catch (e) { return Promise.reject(e); } },
  };
  // oMoment, oCryptoJS and oHtmlparser: the libraries' own builds, evaluated here on first use (one each per context).
  const libraries = {};
  const webCrypto = {
    getRandomValues(array) {
      const view = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
      view.set(bytesOf(sync('random', [view.length])));
      return array;
    },
  };
  const noRequire = (name) => { throw new Error("Cannot find module '" + String(name) + "'"); };
  const loadLibrary = (name) => {
    if (!libraries[name]) {
      const module = { exports: {} };
      const source = JSON.parse(sync('library', [name]));
      // CommonJS as Node would run it (htmlparser checks for __filename), with no AMD loader.
      new Function('module', 'exports', 'require', 'window', 'define', '__filename', '__dirname', source)(module, module.exports, noRequire, { crypto: webCrypto }, undefined, name + '.js', '/');
      libraries[name] = module.exports;
    }
    return libraries[name];
  };
  for (const name of ['oMoment', 'oCryptoJS', 'oHtmlparser']) Object.defineProperty(modules, name, { get: () => loadLibrary(name), enumerable: true });
  // oCryptoRSA: node-rsa's class; the key lives here as PEM text, each method runs in the worker.
  const rsaArg = (value) => value instanceof Uint8Array ? { __bytes: toBase64(value) } : value;
  const rsaValue = (value) => value && typeof value === 'object' && typeof value.__bytes === 'string' ? bytesFromBase64(value.__bytes) : value;
  class NodeRSA {
    constructor(key, format, options) {
      this.state = { pem: null };
      const opts = format && typeof format === 'object' ? format : options;
      if (opts) this.setOptions(opts);
      if (typeof key === 'string' || key instanceof Uint8Array) this.importKey(key, typeof format === 'string' ? format : undefined);
      else if (key && typeof key === 'object' && 'b' in key) this.generateKeyPair(key.b);
      else if (key !== undefined && key !== null) throw new Error('oCryptoRSA: the first argument is a key or {b: bits}');
    }
    rsa(op, ...args) {
      const answer = JSON.parse(sync('rsa', [op, this.state, ...args.map(rsaArg)]));
      this.state = answer.state;
      return rsaValue(answer.value);
    }
    generateKeyPair(bits) { this.rsa('generate', bits); return this; }
    importKey(key, format) { this.rsa('import', key, format); return this; }
    exportKey(format) { return this.rsa('export', format); }
    setOptions(options) { this.rsa('options', options); }
    isPrivate() { return this.rsa('info').isPrivate; }
    isPublic(strict) { const info = this.rsa('info'); return strict ? info.isPublic && !info.isPrivate : info.isPublic; }
    isEmpty() { return this.state.pem === null; }
    getKeySize() { return this.rsa('info').bits; }
    getMaxMessageSize() { const bytes = this.getKeySize() / 8; return (this.state.options && this.state.options.encryptionScheme === 'pkcs1') ? bytes - 11 : bytes - 42; }
    encrypt(data, encoding, sourceEncoding) { return this.rsa('encrypt', data, encoding, sourceEncoding); }
    encryptPrivate(data, encoding, sourceEncoding) { return this.rsa('encryptPrivate', data, encoding, sourceEncoding); }
    decrypt(data, encoding) { return this.rsa('decrypt', data, encoding); }
    decryptPublic(data, encoding) { return this.rsa('decryptPublic', data, encoding); }
    sign(data, encoding, sourceEncoding) { return this.rsa('sign', data, encoding, sourceEncoding); }
    verify(data, signature, sourceEncoding, signatureEncoding) { return this.rsa('verify', data, signature, sourceEncoding, signatureEncoding); }
  }
  modules.oCryptoRSA = NodeRSA;
  modules.oEncodeing = {
    convert: (text, toCharset, fromCharset) => bytesOf(sync('convert', [bytesArg(text), toCharset, fromCharset === undefined ? null : fromCharset])),
  };

  // Timers: each wait is a host call the worker resolves; the runner's timeout still ends the call.
  let nextTimer = 0;
  const cancelled = new Set();
  global.setTimeout = (fn, ms, ...args) => {
    if (typeof fn !== 'function') throw new TypeError('setTimeout needs a function');
    const id = ++nextTimer;
    host('timer', 'wait', JSON.stringify([Number(ms) || 0, id])).then(() => {
      if (cancelled.delete(id)) return;
      fn(...args);
    }).then(undefined, uncaught);
    return id;
  };
  global.clearTimeout = (id) => {
    if (typeof id !== 'number' || id > nextTimer) return;
    cancelled.add(id);
    hostSync('clearTimer', JSON.stringify([id]));
  };
  global.setImmediate = (fn, ...args) => global.setTimeout(fn, 0, ...args);
  const intervals = new Map();
  global.setInterval = (fn, ms, ...args) => {
    const handle = { id: 0, stopped: false };
    const tick = () => { if (handle.stopped) return; handle.id = global.setTimeout(() => { if (!handle.stopped) { fn(...args); tick(); } }, ms); };
    tick();
    const id = ++nextTimer;
    intervals.set(id, handle);
    return id;
  };
  global.clearInterval = (id) => {
    const handle = intervals.get(id);
    if (!handle) return;
    handle.stopped = true;
    intervals.delete(id);
    global.clearTimeout(handle.id);
  };

  global.require = (name) => {
    if (name === 'async') return loadLibrary('async');
    throw new Error("Cannot find module '" + String(name) + "' (only 'async' is available)");
  };
  /** oEvent's hub: one per invocation, so a warm context's next call never meets old listeners. */
  const eventHub = () => {
    const listeners = new Map();
    return {
      on(event, callback) { listeners.set(event, [...(listeners.get(event) || []), { callback, times: Infinity, list: [] }]); },
      after(event, times, callback) { listeners.set(event, [...(listeners.get(event) || []), { callback, times, list: [] }]); },
      emit(event, data) {
        for (const l of listeners.get(event) || []) {
          if (l.times === Infinity) l.callback(data);
          else { l.list.push(data); if (l.list.length === l.times) l.callback(l.list); }
        }
      },
    };
  };
  // oEvent: one hub per invocation, made when first touched (start forgets the last one).
  let currentHub = null;
  Object.defineProperty(modules, 'oEvent', { get: () => (currentHub ??= eventHub()), enumerable: true });
  /**
   * request.headers and request.raw are asked of the host when first read (most functions never
   * do, and the host makes them only then): each an accessor shared by every request, bound to its
   * invocation by a number kept under a symbol, that turns into a plain data property on first use.
   */
  const INVOCATION = Symbol('invocation');
  let invocation = 0;
  const settle = (target, name, value) => Object.defineProperty(target, name, { value, writable: true, configurable: true, enumerable: true });
  const readOnFirstUse = (name, decode) => ({
    configurable: true,
    enumerable: true,
    get() {
      if (this[INVOCATION] !== invocation) throw new Error('request.' + name + ' can only be read first during its own invocation');
      const value = decode(JSON.parse(sync('request', [name])));
      settle(this, name, value);
      return value;
    },
    set(value) { settle(this, name, value); },
  });
  const RAW_ON_READ = readOnFirstUse('raw', (base64) => bytesFromBase64(base64));
  const HEADERS_ON_READ = readOnFirstUse('headers', (headers) => headers);
  /**
   * A reply as start returns it and respond takes it: 's' and the text of a plain reply (a string
   * without NUL, status 200, no header set), else 'j' and {value, status, headers} as JSON. (The
   * host reads the text as a C string: a NUL would end it.)
   */
  // What response.setHeader and response.status accept, as for a host function (function-response.ts).
  const HEADER_NAME = /^[!#$%&'*+.^_\x60|~0-9A-Za-z-]{1,128}$/;
  const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]{0,8192}$/;
  const encodeReply = (value, status, headers, headersSet) =>
    status === 200 && !headersSet && typeof value === 'string' && value.indexOf('\u0000') < 0
      ? 's' + value
      : 'j' + JSON.stringify({ value: value === undefined ? null : value, status, headers });
  /**
   * One invocation: a fresh response each time, so a warm context carries no reply state over. A
   * reply sent before onRequest returns is start's return value (a host call costs more than the
   * function itself); one sent later goes through respond. '' when nothing was sent yet.
   * restText is the JSON of the request's method, body, query and path; its headers and raw body
   * (when hasRaw) are asked of the host on first read.
   */
  const start = function (restText, hasRaw) {
    let status = 200;
    const headers = {};
    let headersSet = false;
    let entered = true;
    let early = '';
    const send = (value) => {
      const text = encodeReply(value, status, headers, headersSet);
      if (!entered) respond(text);
      else if (early === '') early = text;
    };
    const response = {
      send, end: send,
      setHeader(name, value) {
        if (typeof name !== 'string' || !HEADER_NAME.test(name)) throw new TypeError('invalid header name: ' + String(name).slice(0, 64));
        const text = String(value);
        if (!HEADER_VALUE.test(text)) throw new TypeError('invalid value for header ' + name);
        headers[name] = text;
        headersSet = true;
      },
      status(code) {
        const n = Number(code);
        if (!Number.isInteger(n) || n < 200 || n > 599) throw new TypeError('invalid status: ' + String(code).slice(0, 32));
        status = n;
        return this;
      },
    };
    const request = JSON.parse(restText);
    request[INVOCATION] = ++invocation;
    Object.defineProperty(request, 'headers', HEADERS_ON_READ);
    if (hasRaw) Object.defineProperty(request, 'raw', RAW_ON_READ);
    const exported = (global.module && global.module.exports) || global.exports || {};
    const entry = typeof global.onRequest === 'function' ? global.onRequest : typeof exported.onRequest === 'function' ? exported.onRequest : null;
    if (!entry) { fail('the source defines no onRequest(request, response, modules) function'); return ''; }
    try {
      currentHub = null;
      const returned = entry(request, response, modules);
      if (returned && typeof returned.then === 'function') returned.then(undefined, (e) => fail(String(e && e.message || e)));
    } catch (e) {
      // A reply already sent stands, as when it crossed first.
      if (early === '') fail(String(e && e.message || e));
    } finally {
      entered = false;
    }
    return early;
  };
  global.exports = {};
  global.module = { exports: global.exports };
  return start;
})(globalThis)
`;

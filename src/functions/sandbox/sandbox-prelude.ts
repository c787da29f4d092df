/**
 * The JavaScript that runs inside the sandbox before a deployed function: `request`, `response`,
 * `modules` (each method a bridge to the host's module: callback style, the callback's `data` a JSON
 * string as the hosted service passes it, or a promise of the parsed value), `console`, and an
 * in-sandbox `oEvent`. Only four host functions cross the boundary, each taking and returning JSON
 * text: `__host` (asynchronous module calls), `__hostSync` (setHeader, hashes, logs), `__respond`
 * and `__fail`. Nothing of the host's objects is ever handed to the function.
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
  const callbackStyle = (module, method) => function (...args) {
    const callback = typeof args[args.length - 1] === 'function' ? args.pop() : null;
    const pending = call(module, method, args);
    if (!callback) return pending;
    pending.then((value) => callback(null, JSON.stringify(value)), (err) => callback(err));
  };
  const promiseStyle = (module, method) => (...args) => call(module, method, args);
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
    pending.then((res) => callback(null, res, res.body), (err) => callback(err));
  };
  modules.oHttp = { get: http('get'), post: http('post') };
  modules.oData.setHeader = (headers) => { hostSync('setHeader', JSON.stringify([headers])); };
  modules.oCrypto = {
    createHash: (algorithm) => ({ update: (text) => ({ digest: (encoding) => JSON.parse(hostSync('hash', JSON.stringify([algorithm, String(text), encoding]))) }) }),
  };
  const log = (level) => (...parts) => { hostSync('log', JSON.stringify([level, parts.map((p) => typeof p === 'string' ? p : JSON.stringify(p)).join(' ')])); };
  global.console = { log: log('info'), info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') };
  modules.oLog = { log: (message) => log('info')(message) };
  const listeners = new Map();
  modules.oEvent = {
    on(event, callback) { listeners.set(event, [...(listeners.get(event) || []), { callback, times: Infinity, list: [] }]); },
    after(event, times, callback) { listeners.set(event, [...(listeners.get(event) || []), { callback, times, list: [] }]); },
    emit(event, data) {
      for (const l of listeners.get(event) || []) {
        if (l.times === Infinity) l.callback(data);
        else { l.list.push(data); if (l.list.length === l.times) l.callback(l.list); }
      }
    },
  };
  let status = 200;
  const headers = {};
  const send = (value) => { respond(JSON.stringify({ value: value === undefined ? null : value, status, headers })); };
  const response = {
    send, end: send,
    setHeader(name, value) { headers[String(name)] = String(value); },
    status(code) { status = Number(code); return response; },
  };
  global.__start = function () {
    const request = JSON.parse(global.__request);
    delete global.__request;
    const exported = (global.module && global.module.exports) || global.exports || {};
    const entry = typeof global.onRequest === 'function' ? global.onRequest : typeof exported.onRequest === 'function' ? exported.onRequest : null;
    if (!entry) return fail('the source defines no onRequest(request, response, modules) function');
    try {
      const returned = entry(request, response, modules);
      if (returned && typeof returned.then === 'function') returned.then(undefined, (e) => fail(String(e && e.message || e)));
    } catch (e) {
      fail(String(e && e.message || e));
    }
  };
  global.exports = {};
  global.module = { exports: global.exports };
})(globalThis);
`;

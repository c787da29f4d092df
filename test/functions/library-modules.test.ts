import { createCipheriv, createHmac } from 'node:crypto';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';
import { DEFAULT_SANDBOX_LIMITS, loadQuickJs } from '../../src/functions/sandbox/quickjs-sandbox.js';
import { WarmContexts } from '../../src/functions/sandbox/warm-contexts.js';
import { sandboxPackages } from '../../src/functions/sandbox-libraries.js';
import type { FunctionModules } from '../../src/functions/contract.js';
import { type TestServer, startTestServer } from '../helpers/server.js';
import { sandboxRequestOfText } from '../../src/functions/sandbox/sandbox-request.js';

const require = createRequire(import.meta.url);

/** The hosted documentation's uses of oMoment and oCryptoJS, answered as one JSON object. */
const SOURCE = `function onRequest(request, response, modules) {
  var moment = modules.oMoment, CryptoJS = modules.oCryptoJS;
  var key = CryptoJS.enc.Utf8.parse('1234567890123456');
  var sealed = CryptoJS.AES.encrypt(request.body.text, key, { mode: CryptoJS.mode.ECB, padding: CryptoJS.pad.Pkcs7 }).toString();
  var withPass = [CryptoJS.AES.encrypt('secret', 'pass').toString(), CryptoJS.AES.encrypt('secret', 'pass').toString()];
  response.send({
    formatted: moment(request.body.at).utc().format('YYYY-MM-DD HH:mm:ss'),
    nextMonth: moment.utc('2020-01-31').add(1, 'month').format('YYYY-MM-DD'),
    fromNow: moment.utc(request.body.at).from(moment.utc(request.body.at).add(3, 'days')),
    md5: CryptoJS.MD5(request.body.text).toString(),
    hmac: CryptoJS.HmacSHA256(request.body.text, 'k').toString(CryptoJS.enc.Base64),
    sealed: sealed,
    opened: CryptoJS.AES.decrypt(sealed, key, { mode: CryptoJS.mode.ECB, padding: CryptoJS.pad.Pkcs7 }).toString(CryptoJS.enc.Utf8),
    withPass: withPass,
    passOpened: CryptoJS.AES.decrypt(withPass[0], 'pass').toString(CryptoJS.enc.Utf8),
  });
}`;

function expected(text: string, at: number) {
  const cipher = createCipheriv('aes-128-ecb', Buffer.from('1234567890123456'), null);
  return {
    formatted: new Date(at).toISOString().replace('T', ' ').slice(0, 19),
    nextMonth: '2020-02-29',
    fromNow: '3 days ago',
    md5: require('node:crypto').createHash('md5').update(text).digest('hex') as string,
    hmac: createHmac('sha256', 'k').update(text).digest('base64'),
    sealed: Buffer.concat([cipher.update(text), cipher.final()]).toString('base64'),
    opened: text,
    passOpened: 'secret',
  };
}

describe('oMoment and oCryptoJS', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      captcha: false,
      functions: {
        definitions: {
          hostLibraries: (request, response, modules: FunctionModules) => {
            const CryptoJS = modules.oCryptoJS as typeof import('crypto-js');
            const handler = new modules.oHtmlparser.DefaultHandler(() => {});
            new modules.oHtmlparser.Parser(handler).parseComplete('<i>x</i>');
            response.send({ formatted: modules.oMoment(Number(request.body['at'])).utc().format('YYYY-MM-DD HH:mm:ss'), md5: CryptoJS.MD5('abc').toString(), tag: handler.dom[0]?.name ?? null });
          },
        },
      },
    });
  });
  afterAll(() => server.close());

  it('runs the libraries inside a deployed function with the same results as Node', async () => {
    expect((await server.request('PUT', '/1/cloudCode/libraries', { auth: 'master', body: { language: 'node', source: SOURCE } })).status).toBe(200);
    const at = Date.UTC(2026, 10, 24, 9, 30, 15);
    const text = '你好 crypto-js';
    for (let i = 0; i < 2; i++) {
      const res = await server.request('POST', '/1/functions/libraries', { body: { text, at } });
      expect(res.body.result).toMatchObject(expected(text, at));
      // A passphrase gets a fresh random salt each time: the sandbox's getRandomValues works.
      const [first, second] = res.body.result.withPass as string[];
      expect(first).not.toBe(second);
      const CryptoJS = require('crypto-js') as typeof import('crypto-js');
      expect(CryptoJS.AES.decrypt(first!, 'pass').toString(CryptoJS.enc.Utf8)).toBe('secret');
    }
  });

  it('parses HTML with htmlparser in a deployed function, as the package does in Node', async () => {
    const html = '<div id="a" class="x">Hi <b>there</b></div><!-- note --><p>2 &lt; 3<br/></p>';
    const source = `function onRequest(request, response, modules) {
  var htmlparser = modules.oHtmlparser;
  var handler = new htmlparser.DefaultHandler(function (error, dom) { if (error) response.send({ error: String(error) }); }, { ignoreWhitespace: true });
  var parser = new htmlparser.Parser(handler);
  parser.parseComplete(request.body.html);
  var div = htmlparser.DomUtils.getElementById('a', handler.dom);
  response.send({ dom: handler.dom, bold: htmlparser.DomUtils.getElementsByTagName('b', handler.dom)[0].children[0].data, divClass: div.attribs['class'] });
}`;
    expect((await server.request('PUT', '/1/cloudCode/html', { auth: 'master', body: { language: 'node', source } })).status).toBe(200);
    const res = await server.request('POST', '/1/functions/html', { body: { html } });
    const htmlparser = require('htmlparser') as { DefaultHandler: new (cb: () => void, o: object) => { dom: unknown }; Parser: new (h: object) => { parseComplete(t: string): void } };
    const handler = new htmlparser.DefaultHandler(() => {}, { ignoreWhitespace: true });
    new htmlparser.Parser(handler).parseComplete(html);
    expect(res.body.result).toEqual({ dom: JSON.parse(JSON.stringify(handler.dom)), bold: 'there', divClass: 'x' });
  });

  it('hands host-defined functions the libraries themselves', async () => {
    const res = await server.request('POST', '/1/functions/hostLibraries', { body: { at: 0 } });
    expect(res.body).toEqual({ result: { formatted: '1970-01-01 00:00:00', md5: '900150983cd24fb0d6963f7d28e17f72', tag: 'i' } });
  });
});

describe('sandbox library loading', () => {
  let quickjs: QuickJSWASMModule;
  beforeAll(async () => {
    quickjs = await loadQuickJs();
  });

  const run = (contexts: WarmContexts, source: string) =>
    new Promise<{ sent?: unknown; failed?: string }>((resolve) => {
      const outcome: { sent?: unknown; failed?: string } = {};
      contexts.invoke({ key: 'k', version: 1, source }, sandboxRequestOfText('{}'), DEFAULT_SANDBOX_LIMITS, {
        call: async () => null,
        setHeader() {},
        log() {},
        send: (reply) => (outcome.sent = reply.value),
        fail: (message) => (outcome.failed = message),
        idle: () => resolve(outcome),
      });
    });

  it('loads a library only when a function touches it, once per warm context', async () => {
    const asked: string[] = [];
    const real = sandboxPackages(import.meta.url);
    const contexts = new WarmContexts(quickjs, {
      librarySource: (name) => {
        asked.push(name);
        return real.librarySource(name);
      },
      iconv: undefined,
    });
    const source = 'var n = 0; function onRequest(request, response, modules) { n++; if (n === 1) return response.send(Object.keys(modules).length > 10); response.send(modules.oMoment.utc(0).year()) }';
    expect((await run(contexts, source)).sent).toBe(true);
    expect(asked).toEqual([]);
    expect((await run(contexts, source)).sent).toBe(1970);
    expect((await run(contexts, source)).sent).toBe(1970);
    expect(asked).toEqual(['oMoment']);
  });

  it('answers 11007 naming the install when a library is missing', async () => {
    const nowhere = sandboxPackages('/nonexistent/dir/file.js');
    expect(nowhere.iconv).toBeUndefined();
    let error: { code?: number; message?: string } = {};
    try {
      nowhere.librarySource('oMoment');
    } catch (e) {
      error = e as typeof error;
    }
    expect(error).toMatchObject({ code: 11007, message: expect.stringContaining('npm install moment') });
    const contexts = new WarmContexts(quickjs, nowhere);
    const outcome = await run(contexts, 'function onRequest(request, response, modules) { try { modules.oCryptoJS.MD5("x") } catch (e) { response.send(e.message) } }');
    expect(outcome.sent).toEqual(expect.stringContaining('npm install crypto-js'));
  });
});

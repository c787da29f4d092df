import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { findJavaToolchain } from '../../src/functions/java/java-toolchain.js';
import { BACKGROUND_NICENESS } from '../../src/core/background-priority.js';
import { childProcesses, threadNiceness } from '../helpers/niceness.js';
import { type FakeWechatPlatform, startFakeWechatPlatform } from '../../src/testing/fake-wechat-platform.js';
import { createHash } from 'node:crypto';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';
import { localFileStore } from '../../src/files/index.js';
import { TEST_APP, type TestServer, appHeaders, startTestServer } from '../helpers/server.js';
import { manualTimer } from './manual-timer.js';

const SECRET = TEST_APP.secretKey!;

/** Pids of this process's JVM workers (Linux /proc). */
function jvmChildren(): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === process.pid && readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes('svcbase.worker.Main')) pids.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return pids;
}

/** User and system CPU of a process, in clock ticks (0 once it is gone). */
function cpuTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}
const ENTRY = 'public static void onRequest(final Request request, final Response response, final Modules modules) throws Throwable';
const fn = (body: string) => `${ENTRY} {\n${body}\n}`;

/** Java cloud functions over real HTTP: deployed through /1/cloudCode, compiled by javac, run in a JVM worker per application. */
describe.skipIf(!findJavaToolchain())('Java cloud functions', () => {
  let server: TestServer;
  let upstream: ReturnType<typeof createServer>;
  let upstreamUrl = '';
  let platform: FakeWechatPlatform;
  const sms = memorySmsTransport();
  const cacheDir = mkdtempSync(join(tmpdir(), 'svc-java-test-'));
  const timer = manualTimer();
  const master = (method: string, path: string, body?: unknown) => server.request(method, path, { body, auth: 'master' });
  const deploy = (name: string, source: string) => master('PUT', `/1/cloudCode/${name}`, { language: 'java', source });
  const call = (name: string, body: unknown = {}) => server.request('POST', `/1/functions/${name}`, { body });

  beforeAll(async () => {
    upstream = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: req.url, method: req.method })));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    platform = await startFakeWechatPlatform();
    server = await startTestServer({
      captcha: false,
      functions: { timer, limits: { suspendAfter: 3 }, http: { allowHosts: ['127.0.0.1'] }, java: { cacheDir, heapMb: 64 } },
      applications: [
        { ...TEST_APP, settings: { sms: { quota: 'unlimited', limits: { perMinute: 10, perHour: 50, perDay: 100 } } }, featureSettings: { wechat: { miniProgram: { appId: platform.appId, secret: platform.secret, apiBase: platform.url } } } },
      ],
      sms: { transport: sms },
      files: { store: localFileStore({ root: join(cacheDir, 'files') }), media: false },
    });
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await platform.close();
    await new Promise((resolve) => upstream.close(resolve));
    rmSync(cacheDir, { recursive: true, force: true });
  });

  it('deploys a function and runs it over REST and plain HTTP', async () => {
    const saved = await deploy('hello', fn('  String name = request.getParams().optString("name", request.getQueryParam("name"));\n  response.send("hello " + name + " via " + request.getMethod());'));
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ name: 'hello', language: 'java', updatedAt: expect.any(String) });
    expect((await call('hello', { name: 'rest' })).body).toEqual({ result: 'hello rest via POST' });
    const plain = await fetch(`${server.url}/${SECRET}/hello?name=plain`);
    expect([plain.status, plain.headers.get('content-type'), await plain.text()]).toEqual([200, 'text/plain; charset=utf-8', 'hello plain via GET']);
    expect((await master('GET', '/1/cloudCode/hello')).body).toMatchObject({ language: 'java', source: expect.stringContaining('hello ') });
  }, 60_000);

  it.runIf(process.platform === 'linux')('runs the JVM worker at niceness 10, every thread of it', async () => {
    expect((await call('hello', { name: 'again' })).status).toBe(200);
    const jvms = childProcesses(process.pid, 'java');
    expect(jvms.length).toBeGreaterThan(0);
    for (const pid of jvms) expect(new Set(threadNiceness(pid))).toEqual(new Set([BACKGROUND_NICENESS]));
  }, 60_000);

  it('refuses each broken rule with 322, naming the rule and the line, and stores nothing', async () => {
    const cases: Array<[string, string]> = [
      ['public static void onRequest(Request request, Response response, Modules modules) {\n}', "rule 'entry' broken at line 1"],
      [fn('  response.send("x");') + '\n// trailing', "rule 'last-character' broken"],
      [fn('  /* block */ response.send("x");'), "rule 'block-comment' broken at line 2"],
      [fn('  long t = System.currentTimeMillis();\n  response.send(t);'), "rule 'forbidden-word' broken at line 2: 'System'"],
      [fn('  response.send("x");\n  java.io.File f = null;'), "rule 'forbidden-word' broken at line 3: 'File'"],
      [fn('  response.send(String.valueOf(request.getClass()));'), "rule 'forbidden-word' broken at line 2"],
      [fn('  response.send("x");') + '\npublic static void other() {\n}', "rule 'one-method' broken at line 4"],
      [fn('  response.send("x");\n  // a comment that closes nothing }'), null as never],
      [fn('  class Inner { static int n; }\n  response.send("x");'), "rule 'no-statics' broken at line 2"],
    ];
    for (const [source, message] of cases) {
      const res = await deploy('ruled', source);
      if (message === null) {
        expect(res.status).toBe(200);
        continue;
      }
      expect([res.status, res.body.code]).toEqual([400, 322]);
      expect(res.body.error).toContain(message);
    }
    const list = await master('GET', '/1/cloudCode');
    expect(list.body.results.map((r: { name: string }) => r.name)).toEqual(['hello', 'ruled']);
  }, 60_000);

  it("answers javac's errors with 322 and the function's own line numbers", async () => {
    const res = await deploy('broken', fn('  int n = "text";\n  response.send(n);'));
    expect([res.status, res.body.code]).toEqual([400, 322]);
    expect(res.body.error).toMatch(/broken line 2: incompatible types: String cannot be converted to int/);
    expect((await master('GET', '/1/cloudCode/broken')).body.code).toBe(11032);
  }, 60_000);

  it('reaches data as the caller through oData, with Querier and BmobUpdater, sessions and the master key', async () => {
    const ann = (await server.request('POST', '/1/users', { body: { username: 'ann', password: 'pw-123' } })).body as { objectId: string; sessionToken: string };
    await deploy(
      'notes',
      fn(`  JSONObject p = request.getParams();
  if (p.has("session")) modules.oData.setUserSession(p.getString("session"));
  if (p.has("master")) modules.oData.setMasterKey(p.getString("master"));
  String op = p.getString("op");
  if (op.equals("insert")) {
    JSONObject acl = new JSONObject().put(p.getString("owner"), new JSONObject().put("read", true).put("write", true));
    HttpResponse r = modules.oData.insert("Note", new JSONObject().put("text", p.getString("text")).put("n", 1).put("ACL", acl));
    response.send(r.stringData);
  } else if (op.equals("bump")) {
    HttpResponse r = modules.oData.update("Note", p.getString("id"), BmobUpdater.increment(new JSONObject(), "n", 5));
    response.send(r.err == null ? "ok" : r.jsonData.toString());
  } else if (op.equals("find")) {
    HttpResponse r = modules.oData.find(new Querier("Note").addWhereGreaterThanOrEqualTo("n", 1).order("-n").keys("text,n").count(1));
    response.send(r.jsonData);
  } else if (op.equals("one")) {
    response.send(modules.oData.findOne("Note", p.getString("id")).stringData);
  } else if (op.equals("remove")) {
    response.send(modules.oData.remove("Note", p.getString("id")).stringData);
  } else if (op.equals("time")) {
    response.send(modules.oData.getDBTime().jsonData.getLong("timestamp") > 0);
  }`),
    );
    const created = await call('notes', { op: 'insert', text: "ann's note", owner: ann.objectId, session: ann.sessionToken });
    const id = JSON.parse(created.body.result).objectId as string;
    expect(id).toMatch(/^\w{10}$/);
    // Anonymous: the ACL hides the note, and the update is refused with the REST code.
    expect(JSON.parse((await call('notes', { op: 'find' })).body.result)).toEqual({ results: [], count: 0 });
    expect(JSON.parse((await call('notes', { op: 'bump', id })).body.result)).toMatchObject({ code: 101 });
    // As ann, and with the master key.
    expect((await call('notes', { op: 'bump', id, session: ann.sessionToken })).body.result).toBe('ok');
    const found = JSON.parse((await call('notes', { op: 'find', session: ann.sessionToken })).body.result);
    expect(found).toMatchObject({ count: 1, results: [{ objectId: id, text: "ann's note", n: 6 }] });
    expect(JSON.parse((await call('notes', { op: 'one', id, master: TEST_APP.masterKey })).body.result)).toMatchObject({ n: 6 });
    const wrongKey = await call('notes', { op: 'one', id, master: 'not-the-key' });
    expect([wrongKey.status, wrongKey.body.code]).toEqual([424, 11033]);
    expect(wrongKey.body.error).toMatch(/IllegalArgumentException: .*master key/i);
    expect((await call('notes', { op: 'time' })).body.result).toBe('true');
    expect(JSON.parse((await call('notes', { op: 'remove', id, session: ann.sessionToken })).body.result)).toEqual({ msg: 'ok' });
    expect((await server.request('GET', `/1/classes/Note/${id}`, { auth: 'master' })).status).toBe(404);
  }, 60_000);

  it('shares oMemory between the functions of one application, within 64 KB, one API at a time', async () => {
    await deploy('memPut', fn('  JSONObject p = request.getParams();\n  response.send(modules.oMemory.putMap(p.getString("k"), p.getString("v")));'));
    await deploy('memGet', fn('  response.send(String.valueOf(modules.oMemory.getMap(request.getParams().getString("k"))));'));
    await deploy('memBytes', fn('  modules.oMemory.writeByte(0, (byte) 7);\n  response.send(modules.oMemory.readByte(0));'));
    await deploy('memClean', fn('  modules.oMemory.clean();\n  response.send(modules.oMemory.MemorySize);'));
    expect((await call('memPut', { k: 'greeting', v: 'hi' })).body.result).toBe('true');
    expect((await call('memGet', { k: 'greeting' })).body.result).toBe('hi');
    expect((await call('memPut', { k: 'big', v: 'x'.repeat(70 * 1024) })).body.result).toBe('false');
    const mixed = await call('memBytes');
    expect([mixed.status, mixed.body.code]).toEqual([424, 11033]);
    expect(mixed.body.error).toContain('cannot be mixed');
    expect((await call('memClean')).body.result).toBe('65536');
    expect((await call('memBytes')).body.result).toBe('7');
  }, 60_000);

  it('writes oLog lines at or above the level to the function log', async () => {
    await deploy('logs', fn('  modules.oLog.d("debug one");\n  modules.oLog.level = LogModule.Level_Warn;\n  modules.oLog.d("dropped");\n  modules.oLog.warn("warned %d", 2);\n  modules.oLog.e("bad");\n  response.send("logged");'));
    expect((await call('logs')).body.result).toBe('logged');
    const lines = (await master('GET', '/1/cloudCode/logs/logs')).body.results.map((l: { level: string; message: string }) => [l.level, l.message]);
    expect(lines).toEqual([['error', 'bad'], ['warn', 'warned 2'], ['log', 'debug one']]);
  }, 60_000);

  it('sends one oHttp request per execution through the Node guard', async () => {
    await deploy(
      'fetcher',
      fn(`  HttpResponse first = modules.oHttp.get(request.getParams().getString("url"));
  HttpResponse second = modules.oHttp.get(request.getParams().getString("url"));
  response.send(first.res.code + " " + first.jsonData.getString("path") + " | " + second.err);`),
    );
    expect((await call('fetcher', { url: `${upstreamUrl}/ping?x=1` })).body.result).toBe('200 /ping?x=1 | oHttp sends 1 request per execution');
    await deploy('metadata', fn('  response.send(modules.oHttp.get("http://169.254.169.254/latest").jsonData.getInt("code"));'));
    expect((await call('metadata')).body.result).toBe('11036');
  }, 60_000);

  it('runs function code with no permissions: files, sockets and properties are refused', async () => {
    await deploy('reader', fn('  java.io.FileInputStream in = new java.io.FileInputStream("/etc/hostname");\n  response.send("read " + in.read());'));
    const read = await call('reader');
    expect([read.status, read.body.code]).toEqual([424, 11033]);
    expect(read.body.error).toMatch(/AccessControlException.*FilePermission.*\(line 2\)$/);
    await deploy('dialer', fn(`  new java.net.Socket("127.0.0.1", ${new URL(upstreamUrl).port});\n  response.send("connected");`));
    expect((await call('dialer')).body.error).toMatch(/AccessControlException.*SocketPermission/);
    await deploy('props', fn('  response.send(Integer.getInteger("java.version", 1));'));
    expect((await call('props')).body.error).toMatch(/AccessControlException.*PropertyPermission/);
  }, 60_000);

  it('a function that throws answers 11033 with the exception and its line', async () => {
    await deploy('thrower', fn('  int[] list = new int[1];\n  response.send(list[5]);'));
    const res = await call('thrower');
    expect([res.status, res.body.code]).toEqual([424, 11033]);
    expect(res.body.error).toContain('ArrayIndexOutOfBoundsException: Index 5 out of bounds for length 1 (line 3)');
  }, 60_000);

  it('times out a function that never sends, and replaces a worker that stays busy past its deadline', async () => {
    await deploy('silent', fn('  int n = 1;'));
    await deploy('spinner', fn('  long n = 0;\n  while (n >= 0) n++;\n  response.send(n);'));
    await deploy('mark', fn('  modules.oMemory.clean();\n  response.send(modules.oMemory.putMap("jvm", "first"));'));
    await deploy('peek', fn('  response.send(String.valueOf(modules.oMemory.getMap("jvm")));'));
    expect((await call('mark')).body.result).toBe('true');
    const silent = call('silent');
    const spinning = call('spinner');
    // Both running: two function timeouts and the spinner's worker deadline (the silent one's ended with its method).
    await vi.waitFor(() => expect(timer.pending()).toBe(3), { timeout: 20_000, interval: 20 });
    timer.fireAll();
    const [a, b] = await Promise.all([silent, spinning]);
    expect([a.status, a.body.code]).toEqual([424, 11030]);
    expect([b.status, b.body.code]).toEqual([424, 11030]);
    // The spinning JVM was killed: the next call gets a fresh one (its oMemory starts empty).
    expect((await call('peek')).body).toEqual({ result: 'null' });
  }, 60_000);

  it('a JVM that dies mid-call (out of memory) fails that call with 11210; the next call succeeds', async () => {
    await deploy('hog', fn('  java.util.List<long[]> keep = new java.util.ArrayList<>();\n  while (true) keep.add(new long[1 << 20]);'));
    const res = await call('hog');
    expect([res.status, res.body.code]).toEqual([424, 11210]);
    expect(res.body.error).toContain('Java worker running cloud function hog stopped');
    await deploy('pong', fn('  response.send("pong");'));
    expect((await call('pong')).body).toEqual({ result: 'pong' });
  }, 60_000);

  it('sends bytes raw, with the status and headers the function chose', async () => {
    await deploy('bytes', fn('  JSONObject h = new JSONObject().put("X-Kind", "raw");\n  response.send(new byte[] {1, 2, (byte) 255}, 202, "Accepted", h);'));
    const res = await fetch(`${server.url}/${SECRET}/bytes`);
    expect([res.status, res.headers.get('x-kind'), res.headers.get('content-type')]).toEqual([202, 'raw', 'application/octet-stream']);
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([1, 2, 255]);
  }, 60_000);

  it('serves the Java host forms: any method and content type, the master key alone, index and notfound', async () => {
    await deploy('echo', fn('  response.send(request.getMethod() + " " + request.getHeader("Content-Type") + " " + new String(request.getBody(), "UTF-8") + " " + request.getParams().optString("k", "-"));'));
    const put = await fetch(`${server.url}/1/functions/echo`, { method: 'PUT', headers: { 'X-Svc-Master-Key': TEST_APP.masterKey, 'content-type': 'text/csv' }, body: 'a,b\n1,2' });
    expect([put.status, await put.text()]).toEqual([200, 'PUT text/csv a,b\n1,2 -']);
    const del = await fetch(`${server.url}/${SECRET}/echo`, { method: 'DELETE', headers: { 'content-type': 'application/json' }, body: '{"k":"v"}' });
    expect(await del.text()).toBe('DELETE application/json {"k":"v"} v');
    const noKey = await fetch(`${server.url}/1/functions/echo`, { method: 'PATCH', body: 'x' });
    expect(noKey.status).toBe(401);
    await deploy('index', fn('  response.send("home");'));
    await deploy('notfound', fn('  response.send("no " + request.getPath(), 404);'));
    expect(await (await fetch(`${server.url}/${SECRET}`)).text()).toBe('home');
    const missing = await fetch(`${server.url}/${SECRET}/nothing-here`, { method: 'PUT', body: 'x' });
    expect([missing.status, await missing.text()]).toEqual([404, `no /${SECRET}/nothing-here`]);
  }, 60_000);

  it('keeps oPersistence items: one read and one write per execution, 50 items, limits held under racing writers', async () => {
    await deploy(
      'store',
      fn(`  JSONObject p = request.getParams();
  PersistenceItem item = modules.oPersistence.get("notes", p.optString("name", "none"));
  if (p.getString("op").equals("write")) {
    boolean first = item.write(p.getString("text").getBytes("UTF-8"), p.optBoolean("append"));
    boolean second = item.write(new byte[] {1});
    response.send(first + " " + second);
  } else if (p.getString("op").equals("read")) {
    byte[] buff = new byte[64];
    int n = item.read(buff, p.optLong("skip"));
    int again = item.read(buff);
    response.send(n + ":" + (n > 0 ? new String(buff, 0, n, "UTF-8") : "") + " " + again + " size " + item.size());
  } else if (p.getString("op").equals("delete")) {
    response.send(item.delete());
  } else {
    response.send(modules.oPersistence.getStruct().toString() + " " + (modules.oPersistence.get("..", "x") == null));
  }`),
    );
    const store = async (params: object) => (await call('store', params)).body.result as string;
    expect(await store({ op: 'write', name: 'a', text: 'hello' })).toBe('true false');
    expect(await store({ op: 'write', name: 'a', text: ' world', append: true })).toBe('true false');
    expect(await store({ op: 'read', name: 'a', skip: 6 })).toBe('5:world -1 size 11');
    expect(await store({ op: 'read', name: 'missing' })).toBe('-1: -1 size 0');
    expect(await store({ op: 'struct' })).toBe('{"notes":{"a":11}} true');
    // 48 more items make 49; then 10 racing writers of new items: exactly one fits.
    for (let i = 0; i < 48; i++) expect(await store({ op: 'write', name: `n${i}`, text: 'x' })).toBe('true false');
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => store({ op: 'write', name: `race${i}`, text: 'y' })));
    expect(racing.filter((r) => r === 'true false')).toHaveLength(1);
    expect(racing.filter((r) => r === 'false false')).toHaveLength(9);
    expect(await store({ op: 'write', name: 'a', text: 'rewritten' })).toBe('true false');
    expect(await store({ op: 'delete', name: 'a' })).toBe('true');
    expect(await store({ op: 'write', name: 'b', text: 'fits again' })).toBe('true false');
  }, 60_000);

  it('reaches the mini-program platform through oWechat: token, customer messages, request signatures', async () => {
    await deploy(
      'wx',
      fn(`  JSONObject p = request.getParams();
  String op = p.has("op") ? p.getString("op") : String.valueOf(request.getQueryParam("op"));
  if (op.equals("token")) { response.send(modules.oWechat.getAccessToken() != null); return; }
  if (op.equals("check")) { response.send(modules.oWechat.isWechatRequest("msg-token", request)); return; }
  if (p.has("app")) modules.oWechat.initWechatApp(p.getString("app"), p.getString("secret"));
  if (p.has("token")) modules.oWechat.setAccessToken(p.getString("token"));
  HttpResponse r = op.equals("link")
    ? modules.oWechat.sendWechatAppMsg("openid-1", "link", new JSONObject().put("title", "t").put("url", "https://example.com"))
    : modules.oWechat.sendWechatAppMsg("openid-1", "text", "hi from java");
  response.send(r.err == null ? r.stringData : r.jsonData.toString());`),
    );
    expect((await call('wx', { op: 'token' })).body.result).toBe('true');
    const before = platform.messages.length;
    expect(JSON.parse((await call('wx', { op: 'text' })).body.result)).toEqual({ errcode: 0, errmsg: 'ok' });
    expect(JSON.parse((await call('wx', { op: 'link' })).body.result)).toEqual({ errcode: 0, errmsg: 'ok' });
    expect(platform.messages.slice(before).map((m) => [m.kind, m.body.msgtype, m.body.touser])).toEqual([
      ['custom', 'text', 'openid-1'],
      ['custom', 'link', 'openid-1'],
    ]);
    expect(platform.messages[before]!.body.text).toEqual({ content: 'hi from java' });
    // Another mini program's wrong secret, and a bogus token: the platform's refusals come back coded (301).
    expect(JSON.parse((await call('wx', { op: 'text', app: platform.appId, secret: 'wrong' })).body.result)).toMatchObject({ code: 301, error: expect.stringContaining('40125') });
    expect(JSON.parse((await call('wx', { op: 'text', token: 'bogus' })).body.result)).toMatchObject({ code: 301, error: expect.stringContaining('40001') });
    const [timestamp, nonce] = ['1700000000', 'n0nce'];
    const signature = createHash('sha1').update(['msg-token', timestamp, nonce].sort().join('')).digest('hex');
    const signed = await fetch(`${server.url}/${SECRET}/wx?op=check&signature=${signature}&timestamp=${timestamp}&nonce=${nonce}`);
    expect(await signed.text()).toBe('true');
    const forged = await fetch(`${server.url}/${SECRET}/wx?op=check&signature=${signature}&timestamp=1700000001&nonce=${nonce}`);
    expect(await forged.text()).toBe('false');
  }, 60_000);

  it('signs users up and in, manages roles with the master key, and sends and verifies SMS codes', async () => {
    await deploy(
      'accounts',
      fn(`  JSONObject p = request.getParams();
  String op = p.getString("op");
  HttpResponse r;
  if (op.equals("signUp")) r = modules.oData.userSignUp(new JSONObject().put("username", p.getString("u")).put("password", p.getString("pw")));
  else if (op.equals("login")) r = modules.oData.userLogin(p.getString("u"), p.getString("pw"));
  else if (op.equals("role")) r = modules.oData.setMasterKey(p.getString("master")).roleInsert(new JSONObject().put("name", p.getString("name")));
  else if (op.equals("roleGet")) r = modules.oData.roleFindOne(p.getString("id"));
  else if (op.equals("code")) r = modules.oData.sendSMSCode(p.getString("mobile"), null);
  else r = modules.oData.verifySMSCode(p.getString("mobile"), p.getString("code"));
  response.send(r.stringData);`),
    );
    const run = async (params: object) => JSON.parse((await call('accounts', params)).body.result as string) as Record<string, unknown>;
    expect(await run({ op: 'signUp', u: 'javauser', pw: 'secret-1' })).toMatchObject({ objectId: expect.any(String), sessionToken: expect.any(String) });
    expect(await run({ op: 'signUp', u: 'javauser', pw: 'secret-1' })).toMatchObject({ code: 202 });
    expect(await run({ op: 'login', u: 'javauser', pw: 'secret-1' })).toMatchObject({ username: 'javauser', sessionToken: expect.any(String) });
    expect(await run({ op: 'login', u: 'javauser', pw: 'wrong' })).toMatchObject({ code: 101 });
    const role = await run({ op: 'role', master: TEST_APP.masterKey, name: 'Editors' });
    expect(role).toMatchObject({ objectId: expect.any(String) });
    expect(await run({ op: 'roleGet', id: role.objectId })).toMatchObject({ name: 'Editors' });
    expect(await run({ op: 'code', mobile: '13800138000' })).toMatchObject({ smsId: expect.any(Number) });
    const code = sms.lastCode('13800138000')!;
    expect(await run({ op: 'verify', mobile: '13800138000', code: '000000' === code ? '111111' : '000000' })).toMatchObject({ code: 207 });
    expect(await run({ op: 'verify', mobile: '13800138000', code })).toEqual({ msg: 'ok' });
    expect(await run({ op: 'verify', mobile: '13800138000', code })).toMatchObject({ code: 207 });
  }, 60_000);

  it('logs in by SMS code, resets passwords by SMS and by the old one, and stores and deletes files', async () => {
    await deploy(
      'more',
      fn(`  JSONObject p = request.getParams();
  String op = p.getString("op");
  HttpResponse r;
  if (op.equals("smsLogin")) r = modules.oData.userLoginBySMS(p.getString("mobile"), p.getString("code"), new JSONObject().put("nickname", "phone user"));
  else if (op.equals("smsReset")) r = modules.oData.userResetPasswordBySMS(p.getString("code"), p.getString("password"));
  else if (op.equals("pwdReset")) r = modules.oData.userResetPasswordByPWD(p.getString("id"), p.getString("session"), p.getString("old"), p.getString("password"));
  else if (op.equals("upload")) r = modules.oData.uploadfile("hello.txt", "file body".getBytes("UTF-8"));
  else if (op.equals("delete")) r = modules.oData.deletefile("upyun", p.getString("url"));
  else r = modules.oData.deletefiles(new JSONObject().put("upyun", new JSONArray().put(p.getString("url"))));
  response.send(r.stringData);`),
    );
    const run = async (params: object) => JSON.parse((await call('more', params)).body.result as string) as Record<string, unknown>;
    const phone = '13900139000';
    await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: phone } });
    const user = await run({ op: 'smsLogin', mobile: phone, code: sms.lastCode(phone) });
    expect(user).toMatchObject({ mobilePhoneNumber: phone, nickname: 'phone user', sessionToken: expect.any(String) });
    await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: phone } });
    expect(await run({ op: 'smsReset', code: sms.lastCode(phone), password: 'by-sms-1' })).toEqual({ msg: 'ok' });
    // The reset ended the old sessions (211 with it); a new login gives one.
    expect(await run({ op: 'pwdReset', id: user.objectId, session: user.sessionToken, old: 'by-sms-1', password: 'x-2' })).toMatchObject({ code: 211 });
    const login = await server.request('GET', `/1/login?mobilePhoneNumber=${phone}&password=by-sms-1`);
    expect(login.status).toBe(200);
    const session = (login.body as { sessionToken: string }).sessionToken;
    expect(await run({ op: 'pwdReset', id: user.objectId, session, old: 'wrong', password: 'x-2' })).toMatchObject({ code: 210 });
    expect(await run({ op: 'pwdReset', id: user.objectId, session, old: 'by-sms-1', password: 'by-pwd-2' })).toEqual({ msg: 'ok' });
    expect((await server.request('GET', `/1/login?mobilePhoneNumber=${phone}&password=by-pwd-2`)).status).toBe(200);

    const file = await run({ op: 'upload' });
    // Without files.baseUrl, files put through the API have a url relative to the service's mount.
    expect(file).toMatchObject({ cdn: 'upyun', filename: 'hello.txt', url: expect.stringMatching(/^\/files\/test_app\//) });
    expect(await (await fetch(`${server.url}${String(file.url)}`)).text()).toBe('file body');
    expect(await run({ op: 'delete', url: file.url })).toEqual({ msg: 'ok' });
    expect(await run({ op: 'delete', url: file.url })).toMatchObject({ code: 11144 });
    expect(await run({ op: 'deleteMany', url: file.url })).toMatchObject({ fail: [file.url] });
  }, 60_000);

  it('reads the source as javac does before the save rules: Unicode escapes and ignorable characters cannot hide a word (regression: \\u0052untime was accepted)', async () => {
    const cases: Array<[string, string]> = [
      [fn('  \\u0052untime.getRuntime().exec("id");\n  response.send("x");'), "rule 'forbidden-word' broken at line 2: 'Runtime'"],
      [fn('  int \\uuu0073tatic;\n  response.send("x");'), "rule 'no-statics' broken at line 2"],
      // \u000a ends the comment: the word after it is code.
      [fn('  response.send("x"); // \\u000a Sys\\u0074em.exit(1);'), "rule 'forbidden-word' broken at line 2: 'System'"],
      // javac drops a zero-width space inside an identifier.
      [fn('  Sys\u200btem.exit(1);'), "rule 'forbidden-word' broken at line 2: 'System'"],
      [fn('  response.send("x"); \\u002f\\u002a hidden */'), "rule 'block-comment' broken at line 2"],
      // A lone carriage return ends a // comment too: what follows is a second method.
      [fn('  response.send("x"); // \r} public void other() {'), "rule 'one-method' broken at line 2"],
    ];
    for (const [source, message] of cases) {
      const res = await deploy('escaped', source);
      expect([res.status, res.body.code, res.body.error]).toEqual([400, 322, expect.stringContaining(message)]);
    }
    // An escaped backslash is not an escape: the text stays a string.
    expect((await deploy('escaped', fn('  response.send("\\\\u0053ystem");'))).status).toBe(200);
    expect((await call('escaped')).body).toEqual({ result: '\\u0053ystem' });
  }, 60_000);

  it('answers a reply with a status or header that cannot be sent with 11220 (regression: 11033 from a throw in the frame handler)', async () => {
    await deploy('badStatus', fn('  response.send("x", 99);'));
    expect((await call('badStatus')).body).toMatchObject({ code: 11220, error: expect.stringContaining('invalid status: 99') });
    await deploy('badHeader', fn('  response.send("x", 200, null, new JSONObject().put("X-A", "a\\r\\nSet-Cookie: b=1"));'));
    const bad = await call('badHeader');
    expect([bad.body.code, bad.headers.get('set-cookie')]).toEqual([11220, null]);
    // And GET /1/functions/:name reaches a Java function (regression: 404).
    const get = await fetch(`${server.url}/1/functions/hello?name=get`, { headers: appHeaders() });
    expect([get.status, await get.text()]).toEqual([200, 'hello get via GET']);
  }, 60_000);

  it('runs nothing a function hands to the common pool, and recycles a JVM a function left burning a core (regression: the JVM kept a core busy)', async () => {
    const cpuOfJvms = () => jvmChildren().reduce((sum, pid) => sum + cpuTicks(pid), 0);
    await deploy('pool', fn('  java.util.concurrent.ForkJoinPool.commonPool().execute(() -> { long n = 0; while (true) { n++; } });\n  response.send("queued");'));
    expect((await call('pool')).body).toEqual({ result: 'queued' });
    const before = cpuOfJvms();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(cpuOfJvms() - before).toBeLessThan(30); // clock ticks (1/100 s): under 0.3 s of CPU in 1 s
    // A finalizer the JDK runs on its own thread, after the invocation: the JVM is replaced.
    const pids = jvmChildren();
    await deploy('finalizer', fn('  Object o = new Object() { @Override protected void finalize() { long n = 0; while (true) { n++; } } };\n  o = null;\n  for (int i = 0; i < 300000; i++) { byte[] b = new byte[1024]; b[0] = 1; }\n  response.send("left");'));
    expect((await call('finalizer')).body).toEqual({ result: 'left' });
    await vi.waitFor(() => expect(jvmChildren().filter((pid) => pids.includes(pid))).toEqual([]), { timeout: 5000, interval: 100 });
    expect((await call('hello', { name: 'again' })).body).toEqual({ result: 'hello again via POST' });
  }, 60_000);

  it('refuses a class cache others can write to (classes planted there would run)', async () => {
    const shared = mkdtempSync(join(tmpdir(), 'svc-java-shared-'));
    chmodSync(shared, 0o777);
    const other = await startTestServer({ captcha: false, functions: { java: { cacheDir: shared } } });
    try {
      const res = await other.request('PUT', '/1/cloudCode/j', { auth: 'master', body: { language: 'java', source: fn('  response.send("x");') } });
      expect([res.status, res.body.code]).toEqual([424, 11209]);
      expect(res.body.error).toContain('others cannot write to');
    } finally {
      await other.close();
      rmSync(shared, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('Java cloud functions without a JDK', () => {
  it('answers 11209 for Java deployments, and everything else works', async () => {
    const server = await startTestServer({ captcha: false, functions: { java: { javaHome: '/nonexistent-jdk' } } });
    try {
      const java = await server.request('PUT', '/1/cloudCode/j', { auth: 'master', body: { language: 'java', source: fn('  response.send("x");') } });
      expect([java.status, java.body.code]).toEqual([424, 11209]);
      expect(java.body.error).toContain('java and javac were not found');
      expect((await server.request('GET', '/1/cloudCode/j', { auth: 'master' })).body.code).toBe(11032);
      const node = await server.request('PUT', '/1/cloudCode/n', { auth: 'master', body: { language: 'node', source: 'function onRequest(q, r) { r.send("node ok") }' } });
      expect(node.status).toBe(200);
      expect((await server.request('POST', '/1/functions/n', { body: {} })).body).toEqual({ result: 'node ok' });
    } finally {
      await server.close();
    }
  });
});

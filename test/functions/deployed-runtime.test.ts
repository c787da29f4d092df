import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gunzipSync } from 'node:zlib';
import { TEST_APP, type TestServer, startTestServer } from '../helpers/server.js';

const SECRET = TEST_APP.secretKey!;

/** Deployed functions' timers, require('async'), oGzip and oEncodeing, inside the QuickJS sandbox, over real HTTP. */
describe('deployed functions: timers, async, bytes', () => {
  let server: TestServer;
  const deploy = (name: string, source: string) => server.request('PUT', `/1/cloudCode/${name}`, { auth: 'master', body: { language: 'node', source } });
  const call = (name: string, body: object = {}) => server.request('POST', `/1/functions/${name}`, { body });

  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: {} });
  });
  afterAll(() => server.close());

  it('runs setTimeout, clearTimeout, setInterval and setImmediate callbacks in order', async () => {
    const source = `function onRequest(request, response) {
  const seen = [];
  const dropped = setTimeout(() => seen.push('cleared'), 1);
  clearTimeout(dropped);
  setImmediate(() => seen.push('immediate'));
  setTimeout((word) => seen.push(word), 5, 'timeout');
  let n = 0;
  const every = setInterval(() => {
    seen.push('tick' + (++n));
    if (n === 3) { clearInterval(every); setTimeout(() => response.send(seen), 2); }
  }, 1);
}`;
    expect((await deploy('timers', source)).status).toBe(200);
    const result = (await call('timers')).body.result as string[];
    expect(result).not.toContain('cleared');
    expect(result.filter((s) => s.startsWith('tick'))).toEqual(['tick1', 'tick2', 'tick3']);
    expect(result).toEqual(expect.arrayContaining(['immediate', 'timeout']));
    expect(result[0]).toBe('immediate');
  });

  it("offers require('async') for series, parallel, waterfall and the collection helpers", async () => {
    const source = `function onRequest(request, response) {
  const async = require('async');
  const later = (value) => (cb) => setTimeout(() => cb(null, value), 1);
  async.series([later(1), later(2)], (err, series) => {
    async.parallel({ a: later('x'), b: (cb) => cb(null, 'y') }, (err2, parallel) => {
      async.waterfall([(cb) => cb(null, 2), (n, cb) => cb(null, n * 21)], (err3, answer) => {
        async.mapSeries([1, 2, 3], (n, cb) => cb(null, n * n), (err4, squares) => {
          async.eachSeries([1, 2], (n, cb) => cb(n === 2 ? { code: 1, error: 'two' } : null), (err5) => {
            let missing = null;
            try { require('fs'); } catch (e) { missing = e.message; }
            response.send({ series, parallel, answer, squares, stopped: err5.error, missing });
          });
        });
      });
    });
  });
}`;
    expect((await deploy('asyncLib', source)).status).toBe(200);
    expect((await call('asyncLib')).body.result).toEqual({
      series: [1, 2],
      parallel: { a: 'x', b: 'y' },
      answer: 42,
      squares: [1, 4, 9],
      stopped: 'two',
      missing: "Cannot find module 'fs' (only 'async' is available)",
    });
  });

  it("offers async's limits, loops, retry, auto and queue", async () => {
    const source = `function onRequest(request, response) {
  const async = require('async');
  let running = 0, widest = 0;
  const slow = (value) => (cb) => { running++; widest = Math.max(widest, running); setTimeout(() => { running--; cb(null, value); }, 1); };
  const out = {};
  async.parallelLimit([slow(1), slow(2), slow(3), slow(4), slow(5)], 2, (err, values) => {
    out.limited = values; out.widest = widest;
    async.mapLimit([1, 2, 3], 2, (n, cb) => setTimeout(() => cb(null, n * 10), 3 - n), (e1, mapped) => {
      out.mapped = mapped;
      async.timesSeries(3, (i, cb) => cb(null, i * i), (e2, times) => {
        out.times = times;
        async.reduce([1, 2, 3], 0, (acc, n, cb) => cb(null, acc + n), (e3, sum) => {
          out.sum = sum;
          async.filter([1, 2, 3, 4], (n, cb) => cb(null, n % 2 === 0), (e4, even) => {
            out.even = even;
            let i = 0, j = 0, k = 0;
            async.whilst(() => i < 3, (cb) => { i++; setTimeout(cb, 0); }, () => {
              async.whilst((cb) => cb(null, j < 2), (cb) => { j++; cb(); }, () => {
                async.until(() => k >= 4, (cb) => { k++; cb(); }, () => {
                  out.loops = [i, j, k];
                  let tries = 0;
                  async.retry(3, (cb) => { tries++; cb(tries < 3 ? new Error('flaky') : null, 'ok after ' + tries); }, (e5, retried) => {
                    out.retried = retried;
                    async.auto({
                      a: (cb) => setTimeout(() => cb(null, 1), 1),
                      b: ['a', (r, cb) => cb(null, r.a + 1)],
                      c: ['a', 'b', (r, cb) => cb(null, r.a + r.b)],
                    }, (e6, auto) => {
                      out.auto = auto;
                      async.auto({ x: ['y', (r, cb) => cb(null, 1)], y: ['x', (r, cb) => cb(null, 2)] }, (cycle) => {
                        out.cycle = cycle.message;
                        const seen = [];
                        let busy = 0, busiest = 0;
                        const q = async.queue((task, cb) => { busy++; busiest = Math.max(busiest, busy); setTimeout(() => { busy--; seen.push(task); cb(); }, 1); }, 2);
                        q.drain = () => { out.queue = seen.sort(); out.busiest = busiest; response.send(out); };
                        q.push(['slow', 'quick', 'third']);
                      });
                    });
                  });
                });
              });
            });
          });
        });
      });
    });
  });
}`;
    expect((await deploy('asyncMore', source)).status).toBe(200);
    const result = (await call('asyncMore')).body.result as Record<string, unknown>;
    expect(result).toEqual({
      limited: [1, 2, 3, 4, 5],
      widest: 2,
      mapped: [10, 20, 30],
      times: [0, 1, 4],
      sum: 6,
      even: [2, 4],
      loops: [3, 2, 4],
      retried: 'ok after 3',
      auto: { a: 1, b: 2, c: 3 },
      cycle: 'async.auto: the dependencies form a cycle',
      queue: ['quick', 'slow', 'third'],
      busiest: 2,
    });
  });

  it("offers async's cargo, priorityQueue, memoize, seq/compose and collection helpers", async () => {
    const source = `function onRequest(request, response) {
  const async = require('async');
  const out = {};
  const batches = [];
  const cargo = async.cargo((tasks, cb) => { batches.push(tasks); setTimeout(cb, 1); }, 2);
  cargo.drain = () => {
    out.batches = batches;
    const started = [];
    const pq = async.priorityQueue((task, cb) => { started.push(task); setTimeout(cb, 1); }, 1);
    pq.push('low', 5);
    pq.push(['urgent', 'urgent2'], 1);
    pq.push('middle', 3);
    pq.drain = () => {
      out.priority = started;
      let calls = 0;
      const slowSquare = async.memoize((n, cb) => { calls++; setTimeout(() => cb(null, n * n), 1); });
      slowSquare(4, () => slowSquare(4, (e, sq) => slowSquare(5, () => {
        out.memo = [sq, calls];
        const add1 = (n, cb) => cb(null, n + 1);
        const double = (n, cb) => cb(null, n * 2);
        async.seq(add1, double)(3, (e1, seq) => async.compose(add1, double)(3, (e2, composed) => {
          out.pipes = [seq, composed];
          async.mapValues({ a: 1, b: 2 }, (v, k, cb) => cb(null, k + v), (e3, mapped) => {
            out.mapValues = mapped;
            async.detect([1, 5, 8, 9], (n, cb) => cb(null, n > 4), (e4, found) => {
              async.some([1, 2], (n, cb) => cb(null, n > 1), (e5, some) => {
                async.every([1, 2], (n, cb) => cb(null, n > 1), (e6, every) => {
                  async.reject([1, 2, 3, 4], (n, cb) => cb(null, n % 2 === 0), (e7, odd) => {
                    async.concat([1, 2], (n, cb) => cb(null, [n, n * 10]), (e8, flat) => {
                      async.sortBy(['ccc', 'a', 'bb'], (w, cb) => cb(null, w.length), (e9, sorted) => {
                        const seen = [];
                        async.eachOfSeries({ x: 1, y: 2 }, (v, k, cb) => { seen.push(k + v); cb(); }, () => {
                          async.asyncify((n) => Promise.resolve(n * 3))(7, (e10, tripled) => {
                            out.collections = { found, some, every, odd, flat, sorted, seen, tripled };
                            response.send(out);
                          });
                        });
                      });
                    });
                  });
                });
              });
            });
          });
        }));
      })));
    };
  };
  cargo.push([1, 2, 3, 4, 5]);
}`;
    expect((await deploy('asyncRest', source)).status).toBe(200);
    expect((await call('asyncRest')).body.result).toEqual({
      batches: [[1, 2], [3, 4], [5]],
      priority: ['urgent', 'urgent2', 'middle', 'low'],
      memo: [16, 2],
      pipes: [8, 7],
      mapValues: { a: 'a1', b: 'b2' },
      collections: { found: 5, some: true, every: false, odd: [1, 3], flat: [1, 10, 2, 20], sorted: ['a', 'bb', 'ccc'], seen: ['x1', 'y2'], tripled: 21 },
    });
  });

  it("offers async's race, tryEach, timeout, reflect, groupBy and the Limit and Series forms", async () => {
    const source = `async function onRequest(request, response) {
  const async = require('async');
  const p = (fn, ...args) => new Promise((resolve) => fn(...args, (err, value) => resolve(err ? 'error: ' + (err.message || err) : value)));
  const later = (ms, value, fail) => (cb) => setTimeout(() => (fail ? cb(new Error(value)) : cb(null, value)), ms);
  const out = {};
  out.race = await p(async.race, [later(5, 'slow'), later(1, 'fast')]);
  out.raceError = await p(async.race, [later(5, 'slow'), later(1, 'broke', true)]);
  out.raceNotArray = await p(async.race, {});
  out.tryEach = await p(async.tryEach, [later(1, 'first failed', true), later(1, 'second')]);
  out.tryEachAll = await p(async.tryEach, [later(1, 'a failed', true), later(1, 'b failed', true)]);
  const slow = async.timeout(function slowTask(cb) { setTimeout(() => cb(null, 'late'), 30); }, 5, 'context');
  out.timeout = await new Promise((resolve) => slow((err, value) => resolve(err ? [err.code, err.message, err.info] : value)));
  out.inTime = await p(async.timeout((cb) => cb(null, 'quick'), 50));
  out.reflect = await p(async.parallel, async.reflectAll([later(1, 'ok'), later(1, 'bad', true), (cb) => cb(null, 1, 2)]));
  out.reflect = out.reflect.map((r) => (r.error ? { error: r.error.message } : r));
  out.groupBy = await p(async.groupBy, [1, 2, 3, 4, 5], (n, cb) => setTimeout(() => cb(null, n % 2 ? 'odd' : 'even'), 6 - n));
  out.groupBySeries = await p(async.groupBySeries, ['apple', 'avocado', 'banana'], (w, cb) => cb(null, w[0]));
  let running = 0, widest = 0;
  const tracked = (value, cb) => { running++; widest = Math.max(widest, running); setTimeout(() => { running--; cb(null, value); }, 2); };
  out.groupByLimit = await p(async.groupByLimit, [3, 1, 3], 2, (n, cb) => tracked(String(n), cb));
  out.filterLimit = await p(async.filterLimit, [1, 2, 3, 4, 5, 6], 2, (n, cb) => tracked(n % 3 === 0, cb));
  out.rejectSeries = await p(async.rejectSeries, [1, 2, 3], (n, cb) => cb(null, n === 2));
  out.rejectLimit = await p(async.rejectLimit, [1, 2, 3, 4], 2, (n, cb) => tracked(n > 2, cb));
  out.concatSeries = await p(async.concatSeries, [1, 2], (n, cb) => cb(null, [n, -n]));
  out.concatLimit = await p(async.concatLimit, [1, 2, 3], 2, (n, cb) => tracked([n], cb));
  out.mapValuesLimit = await p(async.mapValuesLimit, { a: 1, b: 2, c: 3 }, 2, (v, k, cb) => tracked(k + v * 2, cb));
  const seen = [];
  await p(async.eachOfLimit, { x: 1, y: 2, z: 3 }, 2, (v, k, cb) => tracked(null, () => { seen.push(k); cb(); }));
  out.eachOfLimit = seen.sort();
  out.widest = widest;
  out.detectSeries = await p(async.detectSeries, [2, 4, 5, 7], (n, cb) => cb(null, n % 2 === 1));
  out.everyLimit = await p(async.everyLimit, [2, 4], 1, (n, cb) => cb(null, n % 2 === 0));
  response.send(out);
}`;
    expect((await deploy('asyncRarest', source)).status).toBe(200);
    expect((await call('asyncRarest')).body.result).toEqual({
      race: 'fast',
      raceError: 'error: broke',
      raceNotArray: 'error: First argument to race must be an array of functions',
      tryEach: 'second',
      tryEachAll: 'error: b failed',
      timeout: ['ETIMEDOUT', 'Callback function "slowTask" timed out.', 'context'],
      inTime: 'quick',
      reflect: [{ value: 'ok' }, { error: 'bad' }, { value: [1, 2] }],
      groupBy: { odd: [1, 3, 5], even: [2, 4] },
      groupBySeries: { a: ['apple', 'avocado'], b: ['banana'] },
      groupByLimit: { 3: [3, 3], 1: [1] },
      filterLimit: [3, 6],
      rejectSeries: [1, 3],
      rejectLimit: [1, 2],
      concatSeries: [1, -1, 2, -2],
      concatLimit: [1, 2, 3],
      mapValuesLimit: { a: 'a2', b: 'b4', c: 'c6' },
      eachOfLimit: ['x', 'y', 'z'],
      widest: 2,
      detectSeries: 5,
      everyLimit: true,
    });
  });

  it('gzips and converts bytes with oGzip and oEncodeing', async () => {
    const source = `function onRequest(request, response, modules) {
  modules.oGzip.gzip(request.body.text).then((zipped) => {
    modules.oGzip.ungzip(zipped).then((back) => {
      const latin = modules.oEncodeing.convert('café', 'latin1');
      response.send({ zipped: zipped.toString('base64'), back: back.toString(), latin: latin.toString('hex'), size: latin.length });
    });
  });
}`;
    expect((await deploy('bytes', source)).status).toBe(200);
    const result = (await call('bytes', { text: 'héllo wörld' })).body.result as { zipped: string; back: string; latin: string; size: number };
    expect(gunzipSync(Buffer.from(result.zipped, 'base64')).toString('utf8')).toBe('héllo wörld');
    expect(result).toMatchObject({ back: 'héllo wörld', latin: '636166e9', size: 4 });
    const bad = `function onRequest(request, response, modules) {
  modules.oGzip.ungzip(modules.oEncodeing.convert('not gzip', 'utf8')).then(() => response.send('no'), (e) => response.send('refused: ' + e.message));
}`;
    expect((await deploy('badZip', bad)).status).toBe(200);
    expect((await call('badZip')).body.result).toMatch(/^refused: oGzip.ungzip: /);
    const gbk = `function onRequest(request, response, modules) {
  var bytes = modules.oEncodeing.convert('中文', 'gbk');
  try { modules.oEncodeing.convert('x', 'klingon'); } catch (e) { response.send({ hex: bytes.toString('hex'), back: modules.oEncodeing.convert(bytes, 'utf8', 'gbk').toString(), refused: e.message }); }
}`;
    expect((await deploy('gbk', gbk)).status).toBe(200);
    // GBK through iconv-lite, resolved from the package (the worker's own file may be elsewhere).
    expect((await call('gbk')).body.result).toEqual({ hex: 'd6d0cec4', back: '中文', refused: expect.stringMatching(/charset 'klingon' is not supported/) });
  });

  it('a waiting timer keeps no invocation past its send, and the plain path serves it too', async () => {
    const source = `function onRequest(request, response) { setTimeout(() => {}, 60000); response.send('sent before the timer'); }`;
    expect((await deploy('longTimer', source)).status).toBe(200);
    expect(await (await fetch(`${server.url}/${SECRET}/longTimer`)).text()).toBe('sent before the timer');
    expect((await call('timers')).status).toBe(200); // the worker is free for the next call
  });
});

describe('deployed functions: the request', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: {} });
  });
  afterAll(() => server.close());

  it('hands method, query, headers, path and the raw body bytes to the sandbox', async () => {
    const source = `function onRequest(request, response) {
  response.send({ method: request.method, query: request.query, header: request.headers['x-probe'], path: request.path,
    raw: request.raw ? request.raw.toString('utf8') : null, bytes: request.raw ? request.raw.length : null, hex: request.raw ? request.raw.toString('hex') : null });
}`;
    expect((await server.request('PUT', '/1/cloudCode/echo', { auth: 'master', body: { language: 'node', source } })).status).toBe(200);
    const res = await fetch(`${server.url}/${SECRET}/echo?a=1`, { method: 'PUT', headers: { 'content-type': 'text/plain', 'x-probe': 'yes' }, body: 'é!' });
    expect(await res.json()).toEqual({ method: 'PUT', query: { a: '1' }, header: 'yes', path: `/${SECRET}/echo`, raw: 'é!', bytes: 3, hex: 'c3a921' });
  });
});

/**
 * `require('async')` inside the sandbox: the async library's helpers, as the hosted runtime offers the
 * package. Evaluated like the bundled libraries (CommonJS, in the function's own context) the first
 * time a function requires it, so a context that never does pays nothing to parse it.
 */
export const SANDBOX_ASYNC_SOURCE = String.raw`
'use strict';
const once = (fn) => { let called = false; return (...a) => { if (!called) { called = true; fn(...a); } }; };
const tasksOf = (tasks) => Array.isArray(tasks) ? { keys: tasks.map((_, i) => i), list: tasks, out: [] } : { keys: Object.keys(tasks), list: Object.keys(tasks).map((k) => tasks[k]), out: {} };
const asyncLib = {
  series(tasks, done = () => {}) {
    const { keys, list, out } = tasksOf(tasks);
    const step = (i) => {
      if (i === list.length) return done(null, out);
      list[i](once((err, ...values) => { out[keys[i]] = values.length > 1 ? values : values[0]; if (err) return done(err, out); step(i + 1); }));
    };
    step(0);
  },
  parallel(tasks, done = () => {}) {
    const { keys, list, out } = tasksOf(tasks);
    let left = list.length, failed = false;
    if (left === 0) return done(null, out);
    list.forEach((task, i) => task(once((err, ...values) => {
      if (failed) return;
      out[keys[i]] = values.length > 1 ? values : values[0];
      if (err) { failed = true; return done(err, out); }
      if (--left === 0) done(null, out);
    })));
  },
  waterfall(tasks, done = () => {}) {
    const step = (i, args) => {
      if (i === tasks.length) return done(null, ...args);
      tasks[i](...args, once((err, ...values) => err ? done(err) : step(i + 1, values)));
    };
    step(0, []);
  },
  eachSeries(items, fn, done = () => {}) {
    const list = Array.from(items);
    const step = (i) => i === list.length ? done(null) : fn(list[i], once((err) => err ? done(err) : step(i + 1)));
    step(0);
  },
  each(items, fn, done = () => {}) {
    asyncLib.parallel(Array.from(items).map((item) => (cb) => fn(item, cb)), (err) => done(err || null));
  },
  mapSeries(items, fn, done = () => {}) {
    asyncLib.series(Array.from(items).map((item) => (cb) => fn(item, cb)), done);
  },
  map(items, fn, done = () => {}) {
    asyncLib.parallel(Array.from(items).map((item) => (cb) => fn(item, cb)), done);
  },
  times(n, fn, done = () => {}) {
    asyncLib.parallel(Array.from({ length: n }, (_, i) => (cb) => fn(i, cb)), done);
  },
};
/** Runs tasks (array or object) with at most limit at once; results keep their keys. */
asyncLib.parallelLimit = (tasks, limit, done = () => {}) => {
  const { keys, list, out } = tasksOf(tasks);
  let next = 0, running = 0, left = list.length, failed = false;
  if (left === 0) return done(null, out);
  const width = Math.max(1, Number(limit) || 1);
  const launch = () => {
    while (!failed && running < width && next < list.length) {
      const i = next++;
      running++;
      list[i](once((err, ...values) => {
        running--;
        if (failed) return;
        out[keys[i]] = values.length > 1 ? values : values[0];
        if (err) { failed = true; return done(err, out); }
        if (--left === 0) return done(null, out);
        launch();
      }));
    }
  };
  launch();
};
asyncLib.eachLimit = (items, limit, fn, done = () => {}) => asyncLib.parallelLimit(Array.from(items).map((item) => (cb) => fn(item, cb)), limit, (err) => done(err || null));
asyncLib.mapLimit = (items, limit, fn, done = () => {}) => asyncLib.parallelLimit(Array.from(items).map((item) => (cb) => fn(item, cb)), limit, done);
asyncLib.timesSeries = (n, fn, done = () => {}) => asyncLib.series(Array.from({ length: n }, (_, i) => (cb) => fn(i, cb)), done);
asyncLib.timesLimit = (n, limit, fn, done = () => {}) => asyncLib.parallelLimit(Array.from({ length: n }, (_, i) => (cb) => fn(i, cb)), limit, done);
asyncLib.forEachOf = asyncLib.eachOf = (coll, fn, done = () => {}) => {
  const keys = Array.isArray(coll) ? coll.map((_, i) => i) : Object.keys(coll);
  asyncLib.parallel(keys.map((key) => (cb) => fn(coll[key], key, cb)), (err) => done(err || null));
};
asyncLib.reduce = (items, memo, fn, done = () => {}) => {
  const list = Array.from(items);
  const step = (i, acc) => i === list.length ? done(null, acc) : fn(acc, list[i], once((err, value) => err ? done(err) : step(i + 1, value)));
  step(0, memo);
};
const filterWith = (run) => (items, fn, done = () => {}) => {
  const list = Array.from(items);
  run(list.map((item) => (cb) => fn(item, (err, keep) => cb(err, keep))), (err, kept) => err ? done(err) : done(null, list.filter((_, i) => kept[i])));
};
asyncLib.filter = filterWith(asyncLib.parallel);
asyncLib.filterSeries = filterWith(asyncLib.series);
/** The test may be synchronous (async 2) or take a callback (async 3). */
const checkWith = (test, cb) => test.length >= 1 ? test((err, ok) => cb(err, ok)) : cb(null, test());
asyncLib.whilst = (test, fn, done = () => {}) => {
  const loop = () => checkWith(test, (err, ok) => err ? done(err) : ok ? fn(once((e) => e ? done(e) : loop())) : done(null));
  loop();
};
asyncLib.doWhilst = (fn, test, done = () => {}) => {
  const loop = () => fn(once((e) => e ? done(e) : checkWith(test, (err, ok) => err ? done(err) : ok ? loop() : done(null))));
  loop();
};
asyncLib.until = (test, fn, done = () => {}) => asyncLib.whilst((cb) => checkWith(test, (err, ok) => cb(err, !ok)), fn, done);
asyncLib.retry = (opts, task, done = () => {}) => {
  if (typeof opts === 'function') { done = task || done; task = opts; opts = 5; }
  const times = typeof opts === 'object' ? Number(opts.times) || 5 : Number(opts) || 5;
  const attempt = (n) => task(once((err, ...values) => err && n < times ? attempt(n + 1) : done(err || null, ...values)));
  attempt(1);
};
/** Tasks with dependencies: {name: fn(cb)} or {name: [...deps, fn(results, cb)]}; a cycle is an error. */
asyncLib.auto = (tasks, done = () => {}) => {
  const names = Object.keys(tasks);
  const results = {};
  const started = new Set();
  let left = names.length, inFlight = 0, failed = false;
  if (left === 0) return done(null, results);
  const depsOf = (name) => Array.isArray(tasks[name]) ? tasks[name].slice(0, -1) : [];
  for (const name of names) {
    for (const dep of depsOf(name)) if (!Object.prototype.hasOwnProperty.call(tasks, dep)) return done(new Error('async.auto: ' + name + ' depends on unknown task ' + dep));
  }
  const launch = () => {
    for (const name of names) {
      if (failed || started.has(name)) continue;
      const deps = depsOf(name);
      if (!deps.every((dep) => Object.prototype.hasOwnProperty.call(results, dep))) continue;
      started.add(name);
      inFlight++;
      const spec = tasks[name];
      const fn = Array.isArray(spec) ? spec[spec.length - 1] : spec;
      const cb = once((err, ...values) => {
        inFlight--;
        if (failed) return;
        if (err) { failed = true; return done(err, results); }
        results[name] = values.length > 1 ? values : values[0];
        if (--left === 0) return done(null, results);
        launch();
      });
      if (deps.length > 0) fn(results, cb); else fn(cb);
    }
    // Nothing running and nothing startable: the rest wait on each other.
    if (!failed && left > 0 && inFlight === 0) {
      failed = true;
      done(new Error('async.auto: the dependencies form a cycle'), results);
    }
  };
  launch();
};
/** A work queue: push(task, cb), at most concurrency workers at once, drain() once empty. */
asyncLib.queue = (worker, concurrency = 1) => {
  const waiting = [];
  let running = 0;
  const q = {
    concurrency: Math.max(1, Number(concurrency) || 1),
    drain: null, saturated: null, empty: null,
    push(items, cb) {
      for (const item of Array.isArray(items) ? items : [items]) waiting.push({ item, cb: typeof cb === 'function' ? cb : () => {} });
      setImmediate(run);
    },
    unshift(items, cb) {
      for (const item of (Array.isArray(items) ? items : [items]).reverse()) waiting.unshift({ item, cb: typeof cb === 'function' ? cb : () => {} });
      setImmediate(run);
    },
    length: () => waiting.length,
    running: () => running,
    idle: () => waiting.length === 0 && running === 0,
    kill() { waiting.length = 0; q.drain = null; },
  };
  const run = () => {
    while (running < q.concurrency && waiting.length > 0) {
      const { item, cb } = waiting.shift();
      running++;
      if (waiting.length === 0 && typeof q.empty === 'function') q.empty();
      if (running === q.concurrency && typeof q.saturated === 'function') q.saturated();
      worker(item, once((...args) => {
        running--;
        cb(...args);
        if (q.idle() && typeof q.drain === 'function') q.drain();
        run();
      }));
    }
  };
  return q;
};
asyncLib.apply = (fn, ...bound) => (...rest) => fn(...bound, ...rest);
asyncLib.setImmediate = asyncLib.nextTick = (fn, ...args) => setImmediate(fn, ...args);
asyncLib.forEach = asyncLib.each;
asyncLib.forEachSeries = asyncLib.eachSeries;
asyncLib.forEachLimit = asyncLib.eachLimit;
module.exports = asyncLib;
`;

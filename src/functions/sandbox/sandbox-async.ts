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
/** The machinery of queue and priorityQueue: waiting entries, at most concurrency workers at once, drain() once idle. */
const workQueue = (worker, concurrency) => {
  const waiting = [];
  let running = 0;
  const q = {
    concurrency: Math.max(1, Number(concurrency) || 1),
    drain: null, saturated: null, empty: null,
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
  const entry = (item, cb) => ({ item, cb: typeof cb === 'function' ? cb : () => {} });
  return { q, waiting, entry, schedule: () => setImmediate(run) };
};
const listOf = (items) => (Array.isArray(items) ? items : [items]);
/** A work queue: push(task, cb) and unshift(task, cb), at most concurrency workers at once. */
asyncLib.queue = (worker, concurrency = 1) => {
  const { q, waiting, entry, schedule } = workQueue(worker, concurrency);
  q.push = (items, cb) => { for (const item of listOf(items)) waiting.push(entry(item, cb)); schedule(); };
  q.unshift = (items, cb) => { for (const item of listOf(items).reverse()) waiting.unshift(entry(item, cb)); schedule(); };
  return q;
};
/** A queue whose tasks start lowest priority number first (ties in push order): push(task, priority, cb). */
asyncLib.priorityQueue = (worker, concurrency = 1) => {
  const { q, waiting, entry, schedule } = workQueue(worker, concurrency);
  let order = 0;
  q.push = (items, priority, cb) => {
    for (const item of listOf(items)) waiting.push({ ...entry(item, cb), priority: Number(priority) || 0, order: order++ });
    waiting.sort((a, b) => a.priority - b.priority || a.order - b.order);
    schedule();
  };
  return q;
};
/** Like queue, but the worker takes up to payload tasks at once as an array; each task's callback gets the batch's outcome. */
asyncLib.cargo = (worker, payload = Infinity) => {
  const size = Math.max(1, Number(payload) || Infinity);
  const waiting = [];
  let busy = false;
  const c = {
    payload: size, drain: null, saturated: null, empty: null,
    push(items, cb) {
      for (const item of listOf(items)) waiting.push({ item, cb: typeof cb === 'function' ? cb : () => {} });
      setImmediate(run);
    },
    length: () => waiting.length,
    running: () => (busy ? 1 : 0),
    idle: () => waiting.length === 0 && !busy,
    kill() { waiting.length = 0; c.drain = null; },
  };
  const run = () => {
    if (busy || waiting.length === 0) return;
    const batch = waiting.splice(0, size);
    busy = true;
    if (waiting.length === 0 && typeof c.empty === 'function') c.empty();
    worker(batch.map((entry) => entry.item), once((...args) => {
      busy = false;
      for (const entry of batch) entry.cb(...args);
      if (c.idle() && typeof c.drain === 'function') c.drain();
      run();
    }));
  };
  return c;
};
/** Caches fn's results by hasher(...args) (default: the first argument); calls while one is pending wait for it. */
asyncLib.memoize = (fn, hasher = (first) => first) => {
  const memo = Object.create(null);
  const queues = Object.create(null);
  const memoized = (...args) => {
    const cb = args.pop();
    const key = hasher(...args);
    if (key in memo) return setImmediate(() => cb(...memo[key]));
    if (key in queues) return queues[key].push(cb);
    queues[key] = [cb];
    fn(...args, (...result) => {
      if (!result[0]) memo[key] = result;
      const waiting = queues[key];
      delete queues[key];
      for (const waiter of waiting) waiter(...result);
    });
  };
  memoized.memo = memo;
  memoized.unmemoized = fn;
  return memoized;
};
asyncLib.unmemoize = (fn) => (...args) => (fn.unmemoized || fn)(...args);
/** seq(f, g)(x, cb) runs f(x) then g on f's result; compose(g, f) is the same, written right to left. */
asyncLib.seq = (...fns) => (...args) => {
  const cb = typeof args[args.length - 1] === 'function' ? args.pop() : () => {};
  const step = (i, values) => i === fns.length ? cb(null, ...values) : fns[i](...values, once((err, ...next) => err ? cb(err) : step(i + 1, next)));
  step(0, args);
};
asyncLib.compose = (...fns) => asyncLib.seq(...fns.reverse());
asyncLib.eachOfSeries = asyncLib.forEachOfSeries = (coll, fn, done = () => {}) => {
  const keys = Array.isArray(coll) ? coll.map((_, i) => i) : Object.keys(coll);
  asyncLib.series(keys.map((key) => (cb) => fn(coll[key], key, cb)), (err) => done(err || null));
};
const mapValuesWith = (run) => (obj, fn, done = () => {}) => {
  const keys = Object.keys(obj);
  run(keys.map((key) => (cb) => fn(obj[key], key, cb)), (err, values) => {
    if (err) return done(err);
    const out = {};
    keys.forEach((key, i) => { out[key] = values[i]; });
    done(null, out);
  });
};
asyncLib.mapValues = mapValuesWith(asyncLib.parallel);
asyncLib.mapValuesSeries = mapValuesWith(asyncLib.series);
/** Runs the test on each item in order and stops at the first the decide function settles on. */
const scan = (decide, last) => (items, fn, done = () => {}) => {
  const list = Array.from(items);
  const step = (i) => {
    if (i === list.length) return done(null, last);
    fn(list[i], once((err, ok) => { if (err) return done(err); const found = decide(Boolean(ok), list[i]); return found === undefined ? step(i + 1) : done(null, found.value); }));
  };
  step(0);
};
asyncLib.detect = asyncLib.find = scan((ok, item) => (ok ? { value: item } : undefined), undefined);
asyncLib.some = asyncLib.any = scan((ok) => (ok ? { value: true } : undefined), false);
asyncLib.every = asyncLib.all = scan((ok) => (ok ? undefined : { value: false }), true);
asyncLib.reject = (items, fn, done = () => {}) => asyncLib.filter(items, (item, cb) => fn(item, (err, keep) => cb(err, !keep)), done);
asyncLib.concat = (items, fn, done = () => {}) => asyncLib.map(items, fn, (err, lists) => err ? done(err) : done(null, [].concat(...lists.map((l) => (l === undefined ? [] : l)))));
asyncLib.sortBy = (items, fn, done = () => {}) => {
  const list = Array.from(items);
  asyncLib.map(list, fn, (err, keys) => {
    if (err) return done(err);
    const order = list.map((item, i) => ({ item, key: keys[i] }));
    order.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    done(null, order.map((entry) => entry.item));
  });
};
asyncLib.constant = (...values) => (...args) => args[args.length - 1](null, ...values);
/** A synchronous function (or one returning a promise) as a callback-taking one. */
asyncLib.asyncify = asyncLib.wrapSync = (fn) => (...args) => {
  const cb = args.pop();
  let result;
  try { result = fn(...args); } catch (error) { return cb(error); }
  if (result && typeof result.then === 'function') result.then((value) => cb(null, value), (error) => cb(error || new Error('rejected')));
  else cb(null, result);
};
asyncLib.apply = (fn, ...bound) => (...rest) => fn(...bound, ...rest);
asyncLib.setImmediate = asyncLib.nextTick = (fn, ...args) => setImmediate(fn, ...args);
/** The first task to call back decides: its error or its value. */
asyncLib.race = (tasks, done = () => {}) => {
  if (!Array.isArray(tasks)) return done(new TypeError('First argument to race must be an array of functions'));
  const finish = once(done);
  for (const task of tasks) task(finish);
};
/** Tries each task in turn until one succeeds; the last error when none does. */
asyncLib.tryEach = (tasks, done = () => {}) => {
  const list = Array.isArray(tasks) ? tasks : Object.keys(tasks).map((key) => tasks[key]);
  const step = (i, lastError) => {
    if (i === list.length) return done(lastError || null);
    list[i](once((err, ...values) => (err ? step(i + 1, err) : done(null, values.length > 1 ? values : values[0]))));
  };
  step(0, null);
};
/** fn with a deadline: past ms its callback gets an ETIMEDOUT error, and a later answer is dropped. */
asyncLib.timeout = (fn, ms, info) => (...args) => {
  const cb = args.pop();
  let settled = false;
  const timer = setTimeout(() => {
    if (settled) return;
    settled = true;
    const error = new Error('Callback function "' + (fn.name || 'anonymous') + '" timed out.');
    error.code = 'ETIMEDOUT';
    if (info !== undefined) error.info = info;
    cb(error);
  }, ms);
  fn(...args, (...result) => {
    if (settled) return;
    settled = true;
    clearTimeout(timer);
    cb(...result);
  });
};
/** fn whose callback never fails: it gets {error} or {value} (an array for several values). */
asyncLib.reflect = (fn) => (...args) => {
  const cb = args.pop();
  fn(...args, once((err, ...values) => cb(null, err ? { error: err } : { value: values.length > 1 ? values : values[0] })));
};
asyncLib.reflectAll = (tasks) => Array.isArray(tasks) ? tasks.map(asyncLib.reflect) : Object.fromEntries(Object.keys(tasks).map((key) => [key, asyncLib.reflect(tasks[key])]));
/** The runner of a collection helper's Limit form. */
const limited = (limit) => (tasks, done) => asyncLib.parallelLimit(tasks, limit, done);
/** Items grouped by the key fn answers for each, in collection order within a group. */
const groupByWith = (run) => (items, fn, done = () => {}) => {
  const list = Array.from(items);
  run(list.map((item) => (cb) => fn(item, cb)), (err, keys) => {
    if (err) return done(err);
    const groups = {};
    list.forEach((item, i) => {
      const key = keys[i];
      if (Object.prototype.hasOwnProperty.call(groups, key)) groups[key].push(item);
      else groups[key] = [item];
    });
    done(null, groups);
  });
};
asyncLib.groupBy = groupByWith(asyncLib.parallel);
asyncLib.groupBySeries = groupByWith(asyncLib.series);
asyncLib.groupByLimit = (items, limit, fn, done) => groupByWith(limited(limit))(items, fn, done);
asyncLib.filterLimit = asyncLib.selectLimit = (items, limit, fn, done) => filterWith(limited(limit))(items, fn, done);
const rejectWith = (filter) => (items, fn, done = () => {}) => filter(items, (item, cb) => fn(item, (err, keep) => cb(err, !keep)), done);
asyncLib.rejectSeries = rejectWith(asyncLib.filterSeries);
asyncLib.rejectLimit = (items, limit, fn, done) => rejectWith((list, test, cb) => asyncLib.filterLimit(list, limit, test, cb))(items, fn, done);
const concatWith = (mapper) => (items, fn, done = () => {}) => mapper(items, fn, (err, lists) => err ? done(err) : done(null, [].concat(...lists.map((l) => (l === undefined ? [] : l)))));
asyncLib.concatSeries = concatWith(asyncLib.mapSeries);
asyncLib.concatLimit = (items, limit, fn, done) => concatWith((list, f, cb) => asyncLib.mapLimit(list, limit, f, cb))(items, fn, done);
asyncLib.mapValuesLimit = (obj, limit, fn, done) => mapValuesWith(limited(limit))(obj, fn, done);
asyncLib.eachOfLimit = asyncLib.forEachOfLimit = (coll, limit, fn, done = () => {}) => {
  const keys = Array.isArray(coll) ? coll.map((_, i) => i) : Object.keys(coll);
  asyncLib.parallelLimit(keys.map((key) => (cb) => fn(coll[key], key, cb)), limit, (err) => done(err || null));
};
// detect, some and every already test one item at a time, in order.
asyncLib.detectSeries = asyncLib.findSeries = asyncLib.detect;
asyncLib.detectLimit = asyncLib.findLimit = (items, _limit, fn, done) => asyncLib.detect(items, fn, done);
asyncLib.someSeries = asyncLib.anySeries = asyncLib.some;
asyncLib.someLimit = asyncLib.anyLimit = (items, _limit, fn, done) => asyncLib.some(items, fn, done);
asyncLib.everySeries = asyncLib.allSeries = asyncLib.every;
asyncLib.everyLimit = asyncLib.allLimit = (items, _limit, fn, done) => asyncLib.every(items, fn, done);
asyncLib.forEach = asyncLib.each;
asyncLib.forEachSeries = asyncLib.eachSeries;
asyncLib.forEachLimit = asyncLib.eachLimit;
module.exports = asyncLib;
`;

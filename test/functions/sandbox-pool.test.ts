import { EventEmitter } from 'node:events';
import type { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/core/logger.js';
import { type SandboxJob, type SandboxRun, SandboxPool } from '../../src/functions/sandbox/sandbox-pool.js';
import type { SandboxFunction } from '../../src/functions/sandbox/warm-contexts.js';
import { DEFAULT_SANDBOX_LIMITS } from '../../src/functions/sandbox/quickjs-sandbox.js';
import type { ToPool, ToWorker } from '../../src/functions/sandbox/sandbox-protocol.js';
import { manualTimer } from './manual-timer.js';

/** A worker the test drives: it records what it is sent and exits only when told to. */
class FakeWorker extends EventEmitter {
  readonly received: ToWorker[] = [];
  terminateAsked = false;
  postMessage(text: string): void {
    this.received.push(JSON.parse(text) as ToWorker);
  }
  unref(): void {}
  terminate(): Promise<number> {
    this.terminateAsked = true;
    return Promise.resolve(1);
  }
  say(message: ToPool): void {
    this.emit('message', JSON.stringify([message]));
  }
  exit(): void {
    this.emit('exit', 1);
  }
}

function recordingRun(): SandboxRun & { outcome: string | null } {
  const run = {
    outcome: null as string | null,
    call: async () => null,
    setHeader() {},
    log() {},
    send(reply: { value: unknown }) {
      run.outcome = `sent ${String(reply.value)}`;
    },
    fail(error: Error) {
      run.outcome = `failed ${error.message}`;
    },
  };
  return run;
}

/** One invocation of `fn` for application `app`: a 1 s deadline, a 5 s wait. */
function job(fn: SandboxFunction, requestText = '{}', app = 'app'): SandboxJob {
  return { app, fn, requestText, limits: DEFAULT_SANDBOX_LIMITS, deadlineMs: 1000, maxWaitMs: 5000 };
}

/** A pool of one worker slot over fake workers: every worker it starts is in `workers`. */
function poolOfOne() {
  const workers: FakeWorker[] = [];
  const timer = manualTimer();
  const pool = new SandboxPool({
    size: 1,
    timer,
    logger: silentLogger,
    spawn: () => {
      const worker = new FakeWorker();
      workers.push(worker);
      return worker as unknown as Worker;
    },
  });
  return { workers, timer, pool };
}

describe('sandbox pool', () => {
  it('gives no job to a worker being terminated past its deadline, even when it reports idle before it exits', () => {
    const { workers, timer, pool } = poolOfOne();
    const first = workers[0]!;
    first.say({ type: 'ready' });
    const silent = recordingRun();
    pool.run(job({ key: null, version: 1, source: 'source' }, '{}'), silent);
    expect(first.received.map((m) => m.type)).toEqual(['run']);

    timer.fireAll(); // the deadline passes: terminate is asked for, the exit comes later
    expect(first.terminateAsked).toBe(true);
    first.say({ type: 'idle', id: 1 }); // a late message from the dying worker

    const next = recordingRun();
    pool.run(job({ key: null, version: 1, source: 'source' }, '{}'), next);
    expect(first.received.map((m) => m.type)).toEqual(['run']); // not handed to the dying worker

    first.exit();
    const replacement = workers[1]!;
    replacement.say({ type: 'ready' });
    expect(replacement.received.map((m) => m.type)).toEqual(['run']);
    replacement.say({ type: 'send', id: 2, reply: { value: 'answered', status: 200, headers: {} } });
    expect(next.outcome).toBe('sent answered');
    expect(silent.outcome).toBe('failed cloud function function failed: its sandbox was stopped');
    void pool.close();
  });

  it('hands each worker the running job and the next, and requeues the unstarted one when the worker is replaced', () => {
    const { workers, timer, pool } = poolOfOne();
    workers[0]!.say({ type: 'ready' });
    const runs = [recordingRun(), recordingRun(), recordingRun()];
    for (const run of runs) pool.run(job({ key: 'app\u0000f', version: 1, source: 'source' }, '{"n":1}'), run);
    const ids = (worker: FakeWorker) => worker.received.map((m) => (m.type === 'run' ? m.id : null));
    expect(ids(workers[0]!)).toEqual([1, 2]);
    expect(workers[0]!.received[0]).toMatchObject({ requestText: '{"n":1}', fn: { key: 'app\u0000f' } });

    // The first finishes: the second is running now (its deadline armed), the third is handed over.
    workers[0]!.say({ type: 'send', id: 1, reply: { value: 'one', status: 200, headers: {} } });
    workers[0]!.say({ type: 'idle', id: 1 });
    expect(ids(workers[0]!)).toEqual([1, 2, 3]);
    // A message of the job that waits behind the running one is not taken as the running job's.
    workers[0]!.say({ type: 'send', id: 3, reply: { value: 'early', status: 200, headers: {} } });
    expect(runs[2]!.outcome).toBeNull();

    timer.fireAll(); // the second's deadline passes: the worker is replaced
    workers[0]!.exit();
    expect(runs.map((r) => r.outcome)).toEqual(['sent one', 'failed cloud function function failed: its sandbox was stopped', null]);
    workers[1]!.say({ type: 'ready' });
    expect(ids(workers[1]!)).toEqual([3]);
    workers[1]!.say({ type: 'send', id: 3, reply: { value: 'three', status: 200, headers: {} } });
    expect(runs[2]!.outcome).toBe('sent three');
    void pool.close();
  });

  it('replaces a worker that retires once idle, handing its unstarted job to the replacement', () => {
    const { workers, pool } = poolOfOne();
    workers[0]!.say({ type: 'ready' });
    const runs = [recordingRun(), recordingRun()];
    for (const run of runs) pool.run(job({ key: 'app\u0000f', version: 1, source: 'source' }, '{}'), run);
    workers[0]!.say({ type: 'send', id: 1, reply: { value: 'one', status: 200, headers: {} } });
    // Its wasm memory grew too large: it starts nothing more.
    workers[0]!.emit('message', JSON.stringify([{ type: 'idle', id: 1 }, { type: 'retire' }]));
    expect(workers[0]!.terminateAsked).toBe(true);
    workers[0]!.exit();
    expect(runs[1]!.outcome).toBeNull(); // not failed: it never started
    workers[1]!.say({ type: 'ready' });
    expect(workers[1]!.received.map((m) => (m.type === 'run' ? m.id : null))).toEqual([2]);
    workers[1]!.say({ type: 'send', id: 2, reply: { value: 'two', status: 200, headers: {} } });
    expect(runs.map((r) => r.outcome)).toEqual(['sent one', 'sent two']);
    void pool.close();
  });

  it("sends a keyed function's source to a worker once per version, and again to a replacement worker", () => {
    const { workers, timer, pool } = poolOfOne();
    workers[0]!.say({ type: 'ready' });
    const sources = (worker: FakeWorker) => worker.received.map((m) => (m.type === 'run' ? (m.fn.source ?? '-') : null));
    const finish = (worker: FakeWorker, id: number) => {
      worker.say({ type: 'send', id, reply: { value: id, status: 200, headers: {} } });
      worker.say({ type: 'idle', id });
    };
    pool.run(job({ key: 'app\u0000f', version: 1, source: 'v1' }, '{}'), recordingRun());
    pool.run(job({ key: 'app\u0000f', version: 1, source: 'v1' }, '{}'), recordingRun());
    finish(workers[0]!, 1);
    pool.run(job({ key: 'app\u0000f', version: 2, source: 'v2' }, '{}'), recordingRun());
    finish(workers[0]!, 2);
    // Another deployment in the same millisecond: the same version, another text.
    pool.run(job({ key: 'app\u0000g', version: 1, source: 'g1' }, '{}'), recordingRun());
    finish(workers[0]!, 3);
    pool.run(job({ key: 'app\u0000g', version: 1, source: 'g1 again' }, '{}'), recordingRun());
    finish(workers[0]!, 4);
    pool.run(job({ key: null, version: 1, source: 'fresh' }, '{}'), recordingRun());
    finish(workers[0]!, 5);
    pool.run(job({ key: null, version: 1, source: 'fresh' }, '{}'), recordingRun());
    finish(workers[0]!, 6);
    pool.run(job({ key: 'app\u0000f', version: 2, source: 'v2' }, '{}'), recordingRun());
    expect(sources(workers[0]!)).toEqual(['v1', '-', 'v2', 'g1', 'g1 again', 'fresh', 'fresh', '-']);

    timer.fireAll(); // the running job outlives its deadline: the worker is replaced
    workers[0]!.exit();
    workers[1]!.say({ type: 'ready' });
    // The job that waited behind the stopped one goes to the new worker, with its source this time.
    pool.run(job({ key: 'app\u0000f', version: 2, source: 'v2' }, '{}'), recordingRun());
    expect(sources(workers[1]!)).toEqual(['v2', '-']);
    void pool.close();
  });

  it('ends a worker that sends a malformed message, failing its running invocation, and acts on nothing it sent (issue 36)', () => {
    const { workers, pool } = poolOfOne();
    workers[0]!.say({ type: 'ready' });
    const run = recordingRun();
    pool.run(job({ key: null, version: 1, source: 's' }), run);
    workers[0]!.emit('message', JSON.stringify([{ type: 'send', id: 1, reply: { value: 'x', status: 200, headers: { a: 1 } } }]));
    expect(workers[0]!.terminateAsked).toBe(true);
    expect(run.outcome).toBeNull();
    workers[0]!.emit('message', '{not json');
    workers[0]!.exit();
    expect(run.outcome).toBe('failed cloud function function failed: its sandbox was stopped');
    void pool.close();
  });

  it("fails an invocation, not the process, when acting on its message throws, and answers its later module calls with an error without making them (issue 36)", async () => {
    const { workers, pool } = poolOfOne();
    workers[0]!.say({ type: 'ready' });
    const calls: string[] = [];
    const run = { ...recordingRun(), setHeader: () => { throw new TypeError('the key is wrong'); }, call: async (module: string) => { calls.push(module); return null; } };
    let failed: Error | null = null;
    run.fail = (error: Error) => { failed = error; };
    pool.run(job({ key: null, version: 1, source: 's' }), run);
    workers[0]!.say({ type: 'setHeader', id: 1, headers: { 'X-Bmob-Master-Key': 'wrong' } });
    expect(failed).toMatchObject({ code: 11220 });
    workers[0]!.say({ type: 'call', id: 1, callId: 1, module: 'oData', method: 'insert', args: [] });
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toEqual([]);
    expect(workers[0]!.received.at(-1)).toEqual({ type: 'answer', callId: 1, answer: { err: { code: 11033, error: 'the invocation has failed' } } });
    void pool.close();
  });

  it('serves the application holding the fewest workers first, and refuses a full queue at once (issue 36)', () => {
    const workers: FakeWorker[] = [];
    const pool = new SandboxPool({
      size: 2,
      maxQueuedPerApp: 3,
      timer: manualTimer(),
      logger: silentLogger,
      spawn: () => {
        const worker = new FakeWorker();
        workers.push(worker);
        return worker as unknown as Worker;
      },
    });
    const started: string[] = [];
    const runOf = (label: string) => Object.assign(recordingRun(), { started: () => void started.push(label) });
    const fn = { key: null, version: 1, source: 's' };
    const a = Array.from({ length: 8 }, (_, i) => runOf(`a${i}`));
    for (const run of a) pool.run(job(fn, '{}', 'A'), run);
    // Nothing is ready yet: 3 wait, the other 5 are refused at once.
    expect(a.filter((r) => r.outcome?.includes('are busy')).length).toBe(5);
    const b = runOf('b0');
    pool.run(job(fn, '{}', 'B'), b);
    for (const worker of workers) worker.say({ type: 'ready' });
    // Each free worker takes the application holding fewer: A, then B, though A came first.
    expect(started).toEqual(['a0', 'b0']);
    void pool.close();
  });

  it('keeps one worker free of an application while another application is calling (issue 36, soak: bombs held both workers)', () => {
    const workers: FakeWorker[] = [];
    const options = (pool: FakeWorker[]) => ({
      size: 2,
      timer: manualTimer(),
      logger: silentLogger,
      spawn: () => {
        const worker = new FakeWorker();
        pool.push(worker);
        return worker as unknown as Worker;
      },
    });
    const pool = new SandboxPool(options(workers));
    for (const worker of workers) worker.say({ type: 'ready' });
    const started: string[] = [];
    const runOf = (label: string) => Object.assign(recordingRun(), { started: () => void started.push(label) });
    const fn = { key: null, version: 1, source: 's' };
    const finish = (label: string) => {
      const worker = workers.find((w) => w.received.some((m) => m.type === 'run' && ids.get(m.id) === label))!;
      worker.say({ type: 'idle', id: [...ids].find(([, l]) => l === label)![0] });
    };
    const ids = new Map<number, string>();
    let id = 1;
    const call = (app: string, label: string) => {
      ids.set(id++, label);
      pool.run(job(fn, '{}', app), runOf(label));
    };
    call('B', 'b0');
    finish('b0'); // B called once and is done: it is a neighbour now
    for (let i = 0; i < 3; i++) call('A', `a${i}`); // slow calls of A: it gets one worker, not both
    expect(started).toEqual(['b0', 'a0']);
    call('B', 'b1'); // B's next call starts at once on the worker kept free
    expect(started).toEqual(['b0', 'a0', 'b1']);
    finish('b1');
    expect(started).toEqual(['b0', 'a0', 'b1']); // still B's: A waits for its own worker
    finish('a0');
    expect(started).toEqual(['b0', 'a0', 'b1', 'a1']);
    void pool.close();

    // Alone, an application uses every worker.
    const alone: FakeWorker[] = [];
    const single = new SandboxPool(options(alone));
    for (const worker of alone) worker.say({ type: 'ready' });
    const soloStarted: string[] = [];
    for (let i = 0; i < 3; i++) single.run(job(fn, '{}', 'A'), Object.assign(recordingRun(), { started: () => void soloStarted.push(`a${i}`) }));
    expect(soloStarted).toEqual(['a0', 'a1']);
    void single.close();
  });
});

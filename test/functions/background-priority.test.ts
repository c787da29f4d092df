import { spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKGROUND_NICENESS, lowerChildProcess, lowerThisWorkerThread } from '../../src/core/background-priority.js';
import { threadNiceness } from '../helpers/niceness.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** Deployed functions run below the event loop's priority, so a busy one cannot take its cores (issue 36). */
describe.runIf(process.platform === 'linux')('background priority of function runtimes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ captcha: false, functions: {} });
  });
  afterAll(() => server.close());

  it('runs the sandbox worker threads at niceness 10 and leaves the rest of the process alone', async () => {
    const before = threadNiceness();
    expect(before.filter((n) => n === BACKGROUND_NICENESS)).toEqual([]);
    const saved = await server.request('PUT', '/1/cloudCode/spin', { auth: 'master', body: { language: 'node', source: 'function onRequest(request, response) { let n = 0; for (let i = 0; i < 1e5; i++) n += i; response.send(n); }' } });
    expect(saved.status).toBe(200);
    expect((await server.request('POST', '/1/functions/spin', { body: {} })).body).toEqual({ result: 4999950000 });
    const after = threadNiceness();
    expect(after.filter((n) => n === BACKGROUND_NICENESS).length).toBeGreaterThan(0);
    // The test's own thread (this process's event loop) keeps its priority.
    expect(after.filter((n) => n === 0).length).toBeGreaterThan(0);
  });

  it('does nothing on the main thread', () => {
    expect(lowerThisWorkerThread()).toBe(false);
    expect(getPriority()).toBe(0);
  });

  it('lowers every thread a child process has', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)'], { stdio: 'ignore' });
    try {
      await new Promise((resolve) => child.once('spawn', resolve));
      // Node starts its platform threads while booting: wait until there is more than one.
      for (let i = 0; i < 200 && threadNiceness(child.pid!).length < 2; i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(lowerChildProcess(child.pid)).toBe(true);
      const values = threadNiceness(child.pid!);
      expect(values.length).toBeGreaterThan(1);
      expect(new Set(values)).toEqual(new Set([BACKGROUND_NICENESS]));
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('leaves the workers at the event loop\'s priority with functions.niceness 0', async () => {
    const plain = await startTestServer({ captcha: false, functions: { niceness: 0 } });
    try {
      const before = threadNiceness().filter((n) => n === BACKGROUND_NICENESS).length;
      await plain.request('PUT', '/1/cloudCode/spin0', { auth: 'master', body: { language: 'node', source: 'function onRequest(request, response) { response.send(1); }' } });
      expect((await plain.request('POST', '/1/functions/spin0', { body: {} })).body).toEqual({ result: 1 });
      // The other server's workers of this file keep theirs; this one's added none.
      expect(threadNiceness().filter((n) => n === BACKGROUND_NICENESS).length).toBe(before);
    } finally {
      await plain.close();
    }
  });

  it('refuses a niceness outside 0-19 when the service is made', async () => {
    for (const niceness of [-1, 20, 1.5]) await expect(startTestServer({ captcha: false, functions: { niceness } })).rejects.toThrow(/niceness must be an integer from 0 to 19/);
  });

  it('answers false for a process that is gone', () => {
    expect(lowerChildProcess(undefined)).toBe(false);
    expect(lowerChildProcess(2 ** 22 + 7)).toBe(false);
  });
});

import type { SandboxRun } from '../../src/functions/sandbox/sandbox-pool.js';

/** A sandbox run that records everything it was told, in order. */
export function recordingRun(): SandboxRun & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    call: (module, method) => {
      events.push(`call ${module}.${method}`);
      return Promise.resolve(null);
    },
    setHeader: (headers) => events.push(`setHeader ${JSON.stringify(headers)}`),
    log: (level, message) => events.push(`log ${level} ${message}`),
    send: (reply) => events.push(`send ${JSON.stringify(reply.value)} ${reply.status}`),
    fail: (error) => events.push(`fail ${error.message}`),
  };
}

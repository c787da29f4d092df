import type { ServiceOptions } from '../../src/service.js';
import { createService } from '../../src/service.js';
import { createRecordsFeature } from '../../src/records/index.js';
import { memoryStorage } from '../../src/storage/memory/index.js';
import { type TestServer, TEST_APP, startTestServer } from '../helpers/server.js';

let builtIn: boolean | undefined;

/** Whether createService already mounts the records routes (once the lead wires the feature in). */
function recordsBuiltIn(): boolean {
  if (builtIn === undefined) {
    const probe = createService({ storage: memoryStorage(), applications: [TEST_APP] });
    builtIn = probe.routes.some((r) => r.path === '/1/classes/:table/:objectId');
    void probe.close();
  }
  return builtIn;
}

/** A test server with the records feature mounted (added explicitly until the service mounts it). */
export function startRecordsServer(options: Partial<ServiceOptions> = {}): Promise<TestServer> {
  if (recordsBuiltIn()) return startTestServer(options);
  return startTestServer({
    ...options,
    features: [(ctx, registry) => createRecordsFeature(ctx, { sessions: () => registry.sessions }), ...(options.features ?? [])],
  });
}

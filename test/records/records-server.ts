import type { ServiceOptions } from '../../src/service.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

/** A real HTTP test server; createService mounts the records feature itself. */
export function startRecordsServer(options: Partial<ServiceOptions> = {}): Promise<TestServer> {
  return startTestServer(options);
}

/**
 * The functions group's service: a host-defined `hello`, a host route doing the same work
 * (`POST /1/bench/hello`), and (`deploy`) the same function deployed as source.
 */
import type { Json } from '../src/core/wire-values.js';
import { memoryStorage } from '../src/memory.js';
import { type Service, createService } from '../src/service.js';

export const APP = { applicationId: 'benchfn', restApiKey: 'rest', masterKey: 'master', secretKey: 'bench-secret-01' };
export const HEADERS = { 'x-svc-application-id': 'benchfn', 'x-svc-rest-api-key': 'rest', 'content-type': 'application/json' };
export const BODY_TEXT = '{"name":"bench"}';
export const DEPLOYED_SOURCE = 'function onRequest(request, response) { response.send("hello " + request.body.name) }';

/** `inline: false` runs every deployed invocation on a worker thread (the default runs those that answer at once on the main thread). */
export function functionsBenchService(options: { inline?: boolean | 'isolated-vm' } = {}): Service {
  return createService({
    storage: memoryStorage(),
    applications: [APP],
    captcha: false,
    users: false,
    realtime: false,
    functions: { definitions: { hello: (request, response) => response.send(`hello ${String(request.body['name'])}`) }, deployed: { inline: options.inline ?? true } },
    features: [
      {
        id: 'bench-route',
        init: () => ({
          routes: [
            {
              method: 'POST',
              path: '/1/bench/hello',
              auth: 'app',
              body: 'json',
              handler: (rc) => ({ body: { result: `hello ${String((rc.body ?? {})['name'] as Json)}` } }),
            },
          ],
        }),
      },
    ],
  });
}

/** Deploys a source through `PUT /1/cloudCode/:name` with the master key. */
export function deploy(service: Service, name: string, language: 'node' | 'java', source: string) {
  const body = new TextEncoder().encode(JSON.stringify({ language, source }));
  return service.handle({ method: 'PUT', path: `/1/cloudCode/${name}`, search: '', headers: { ...HEADERS, 'x-svc-master-key': 'master' }, body });
}

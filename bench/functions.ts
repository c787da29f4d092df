/**
 * Cloud-function invocation overhead (issue 16, target ≥ 0.5x): `POST /1/functions/hello` running a
 * host-defined function that answers `hello <name>`, against a host route doing the same work
 * (`POST /1/bench/hello`, the same body, the same reply shape), both through `service.handle()` on
 * one service, so the difference is the functions runtime: name check, suspension and concurrency
 * bookkeeping, timeout timer, response object, modules. Host-defined functions have no cold start
 * (they are plain functions); deployed ones, and their sandbox, are not built yet.
 */
import type { Json } from '../src/core/wire-values.js';
import { memoryStorage } from '../src/memory.js';
import { createService } from '../src/service.js';
import { type BenchConfig, compare } from './harness.js';
import { type ResultRow, comparisonRow } from './report.js';

const APP = { applicationId: 'benchfn', restApiKey: 'rest', masterKey: 'master', secretKey: 'bench-secret-01' };
const HEADERS = { 'x-svc-application-id': 'benchfn', 'x-svc-rest-api-key': 'rest', 'content-type': 'application/json' };
const BODY = new TextEncoder().encode('{"name":"bench"}');

export async function run(config: BenchConfig): Promise<ResultRow[]> {
  const service = createService({
    storage: memoryStorage(),
    applications: [APP],
    captcha: false,
    users: false,
    realtime: false,
    functions: { definitions: { hello: (request, response) => response.send(`hello ${String(request.body['name'])}`) } },
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
  try {
    const call = (path: string) => () => service.handle({ method: 'POST', path, search: '', headers: HEADERS, body: BODY });
    const check = async (path: string) => {
      const res = await call(path)();
      if (res.status !== 200 || !String(res.body).includes('hello bench')) throw new Error(`${path} answered ${res.status} ${String(res.body)}`);
    };
    await check('/1/functions/hello');
    await check('/1/bench/hello');
    config.log('functions: invocation through service.handle');
    const result = await compare(config, call('/1/functions/hello'), call('/1/bench/hello'));
    return [
      comparisonRow('functions', 'POST /1/functions/hello (host-defined) vs a host route doing the same', 'host route', result, 0.5, {
        unit: 'req/s',
        note: 'in-process through service.handle (no sockets): the difference is the functions runtime; deployed functions (sandboxed, with cold starts) are not built yet',
      }),
    ];
  } finally {
    await service.close();
  }
}

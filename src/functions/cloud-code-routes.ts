import { svcError } from '../core/errors.js';
import { formatDateTime } from '../core/time.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { OK_REPLY, resultsOf } from '../http/reply-schemas.js';
import type { RouteContext, RouteDef } from '../features/routes.js';
import type { CloudCodeStore, DeployedSource } from './cloud-code-store.js';
import type { DeployedFunctions } from './deployed-functions.js';
import type { FunctionLogs } from './function-logs.js';
import type { FunctionRunner } from './function-runner.js';

export interface CloudCodeRouteDeps {
  readonly deployed: DeployedFunctions;
  readonly store: CloudCodeStore;
  readonly logs: FunctionLogs;
  readonly runner: FunctionRunner;
}

const nameOf = (rc: RouteContext): string => rc.params['name'] ?? '';

const DEPLOYED = {
  type: 'object',
  required: ['name', 'language', 'updatedAt', 'suspended', 'recentTimeouts'],
  properties: { name: { type: 'string' }, language: { enum: ['node', 'java'] }, updatedAt: { type: 'string' }, suspended: { type: 'boolean' }, recentTimeouts: { type: 'integer', minimum: 0 } },
} as const;

/**
 * `/1/cloudCode` (master key): deploy (`PUT /:name` `{"language":"node","source"}`), resume a
 * suspended function (`PUT /:name` `{"suspended":false}`), list, read with source, delete, and the
 * newest log lines (`GET /:name/logs?limit=n`).
 */
export function cloudCodeRoutes(deps: CloudCodeRouteDeps): RouteDef[] {
  const { deployed, store, logs, runner } = deps;
  // Times as every other route shows them: `YYYY-MM-DD HH:mm:ss` in the application's time zone.
  const shown = (rc: RouteContext, ms: number): string => formatDateTime(ms, rc.caller.app.settings.timeZone);
  const summary = (rc: RouteContext, source: DeployedSource): JsonObject => ({
    name: source.name,
    language: source.language,
    updatedAt: shown(rc, source.updatedAt),
    ...runner.healthOf(rc.caller.app.applicationId, source.name),
  });
  return [
    {
      method: 'GET',
      path: '/1/cloudCode',
      auth: 'master',
      body: 'none',
      responses: { 200: resultsOf(DEPLOYED) },
      handler: async (rc) => ({ body: { results: (await store.list(rc.caller.app.namespace)).map((s) => summary(rc, s)) } }),
    },
    {
      method: 'GET',
      path: '/1/cloudCode/:name',
      auth: 'master',
      body: 'none',
      responses: { 200: { ...DEPLOYED, required: [...DEPLOYED.required, 'source'] } },
      handler: async (rc) => {
        const source = await store.get(rc.caller.app.namespace, nameOf(rc));
        if (!source) throw svcError('functionNotFound', nameOf(rc).slice(0, 64));
        return { body: { ...summary(rc, source), source: source.source } };
      },
    },
    {
      method: 'PUT',
      path: '/1/cloudCode/:name',
      auth: 'master',
      body: 'json',
      responses: { 200: { type: 'object', required: ['name'], properties: { name: { type: 'string' }, language: { type: 'string' }, updatedAt: { type: 'string' }, suspended: { const: false } } } },
      handler: async (rc): Promise<{ body: JsonObject }> => {
        const body = rc.body ?? {};
        const name = nameOf(rc);
        if (Object.keys(body).length === 1 && body['suspended'] === false) {
          if (!(await store.get(rc.caller.app.namespace, name))) throw svcError('functionNotFound', name.slice(0, 64));
          runner.resume(rc.caller.app.applicationId, name);
          return { body: { name, suspended: false } };
        }
        for (const key of Object.keys(body)) if (key !== 'language' && key !== 'source') throw svcError('functionSourceInvalid', `unknown key '${key.slice(0, 32)}'`);
        const saved = await deployed.deploy(rc.caller, name, body['language'], body['source']);
        runner.resume(rc.caller.app.applicationId, name);
        return { body: { name: saved.name, language: saved.language, updatedAt: shown(rc, saved.updatedAt) } };
      },
    },
    {
      method: 'DELETE',
      path: '/1/cloudCode/:name',
      auth: 'master',
      body: 'none',
      responses: { 200: OK_REPLY },
      handler: async (rc) => {
        if (!(await store.delete(rc.caller.app.namespace, nameOf(rc)))) throw svcError('functionNotFound', nameOf(rc).slice(0, 64));
        return { body: { msg: 'ok' } };
      },
    },
    {
      method: 'GET',
      path: '/1/logs/functions',
      auth: 'master',
      body: 'none',
      summary: "The newest log lines of every function of the application on the instance that answers, newest first (the console's live log)",
      responses: { 200: resultsOf({ type: 'object', required: ['at', 'function', 'level', 'message'] }) },
      handler: (rc) => {
        const limit = Number(rc.query.get('limit') ?? 100);
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw svcError('invalidParameter', 'limit must be 1 to 1000');
        const results: Json[] = logs.recent(rc.caller.app.applicationId, null, limit).map((e) => ({ at: shown(rc, e.at), function: e.function, level: e.level, message: e.message }));
        return { body: { results } };
      },
    },
    {
      method: 'GET',
      path: '/1/cloudCode/:name/logs',
      auth: 'master',
      body: 'none',
      responses: { 200: resultsOf({ type: 'object', required: ['at', 'level', 'message'] }) },
      handler: (rc) => {
        const limit = Number(rc.query.get('limit') ?? 100);
        if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw svcError('invalidParameter', 'limit must be 1 to 1000');
        const results: Json[] = logs.recent(rc.caller.app.applicationId, nameOf(rc), limit).map((e) => ({ at: shown(rc, e.at), level: e.level, message: e.message }));
        return { body: { results } };
      },
    },
  ];
}

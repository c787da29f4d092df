import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { FileService } from './file-service.js';

/** Most paths in one `cdnBatchDelete`. */
export const MAX_BATCH_DELETE = 50;

/** Trailing segments a delete path may have after `/2/files/<cdn>/`: the date and name, plus a url's own prefix. */
const MIN_TAIL = 4;
const MAX_TAIL = 12;

/**
 * `DELETE /2/files/<cdn>//<url path>` (the SDK joins `upyun/` and the url's path, hence the double
 * slash) and `POST /2/cdnBatchDelete {"<cdn>": [urls or paths]}` (≤ 50). Only the date and name of a
 * path count and they resolve inside the caller's application, so one application can never delete
 * another's files. A File column still pointing at a deleted file is the application's business.
 */
export function deleteRoutes(files: FileService): RouteDef[] {
  const routes: RouteDef[] = [];
  for (let n = MIN_TAIL; n <= MAX_TAIL; n++) {
    const tail = Array.from({ length: n }, (_, i) => `:p${i}`).join('/');
    routes.push({
      method: 'DELETE',
      path: `/2/files/:cdn/${tail}`,
      auth: 'app',
      body: 'none',
      handler: async (ctx) => {
        const reference = Array.from({ length: n }, (_, i) => ctx.params[`p${i}`]).join('/');
        if (!files.keyOf(ctx.app, reference)) throw svcError('fileSourceInvalid', reference);
        if (!(await files.delete(ctx.app, reference))) throw svcError('fileNotFound', reference);
        return { body: { msg: 'ok' } };
      },
    });
  }
  routes.push({
    method: 'POST',
    path: '/2/cdnBatchDelete',
    auth: 'app',
    body: 'json',
    schema: {
      type: 'object',
      minProperties: 1,
      additionalProperties: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 2048 } },
    },
    handler: (ctx) => batchDelete(ctx, files),
  });
  return routes;
}

async function batchDelete(ctx: RouteContext, files: FileService): Promise<RouteResult> {
  const body = ctx.body as Record<string, string[]>;
  const entries = Object.entries(body).flatMap(([cdn, refs]) => refs.map((ref) => [cdn, ref] as const));
  if (entries.length < 1 || entries.length > MAX_BATCH_DELETE) throw svcError('cdnBatchTooLarge', MAX_BATCH_DELETE);
  // Every path is checked before anything is deleted: a bad batch deletes nothing.
  const missing: Record<string, Json[]> = {};
  for (const [cdn, ref] of entries) {
    if (!files.keyOf(ctx.app, ref)) throw svcError('fileSourceInvalid', ref);
    if (!(await files.stat(ctx.app, ref))) (missing[cdn] ??= []).push(ref);
  }
  if (Object.keys(missing).length > 0) {
    const error = svcError('fileNotFound', Object.values(missing).flat().join(', '));
    return { status: error.status, body: { code: error.code, error: error.message, fail: missing } };
  }
  for (const [, ref] of entries) await files.delete(ctx.app, ref);
  return { body: { msg: 'ok' } };
}

import { svcError } from '../core/errors.js';
import { formatDateTime } from '../core/time.js';
import type { Json } from '../core/wire-values.js';
import type { RouteDef } from '../features/routes.js';
import type { FileService } from './file-service.js';
import { merged } from '../core/copy.js';

const LISTED = {
  type: 'object',
  required: ['results', 'next'],
  properties: {
    results: {
      type: 'array',
      items: { type: 'object', required: ['filename', 'url', 'key', 'size', 'contentType', 'lastModified'] },
    },
    next: { type: ['string', 'null'] },
  },
} as const;

/**
 * `GET /1/files?limit=n&after=<key>` with the master key: the application's files in key order (upload
 * date first), at most 100 a page, with `next` to continue from (the admin console's file browser).
 */
export function listRoute(files: FileService): RouteDef {
  return {
    method: 'GET',
    path: '/1/files',
    auth: 'master',
    body: 'none',
    summary: "A page of the application's stored files (master key)",
    responses: { 200: LISTED },
    handler: async (rc) => {
      const limit = Number(rc.query.get('limit') ?? 50);
      if (!Number.isSafeInteger(limit) || limit < 1 || limit > 100) throw svcError('invalidParameter', 'limit must be 1 to 100');
      const after = rc.query.get('after') ?? '';
      if (after.length > 200) throw svcError('invalidParameter', 'after is not a file key');
      const page = await files.list(rc.caller.app, after, limit, rc.baseUrl);
      return { body: { results: page.files.map((file) => merged(file, { lastModified: formatDateTime(file.lastModified, rc.caller.app.settings.timeZone) })) as unknown as Json, next: page.next } };
    },
  };
}

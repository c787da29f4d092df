import { svcError } from '../core/errors.js';
import type { Caller } from '../app/caller.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { FileRef, FileService } from './file-service.js';
import { isMultipart, parseMultipart } from './multipart.js';

export interface UploadRouteOptions {
  readonly files: FileService;
  /** Largest body buffered to check a signature over the bytes. */
  readonly signedBodyLimit: number;
  /** The route's body limit (every file of one request, with the multipart framing). */
  readonly bodyLimit: number;
}

/**
 * `POST /2/files/:name`: a raw body (browser, Node SDK) or multipart (mini-program, quick app, several
 * files). `auth: 'upload'`: http/ checks every credential form and signature variant of uploads
 * (sdk-wire §2.6) before the handler stores a byte; quick-app uploads carry their credentials only as
 * form fields, which `ctx.upload.caller(fields)` checks. See docs/files.md, "Signatures".
 */
export function uploadRoute(options: UploadRouteOptions): RouteDef {
  return {
    method: 'POST',
    path: '/2/files/:name',
    auth: 'upload',
    body: 'stream',
    bodyLimit: options.bodyLimit,
    signedBodyLimit: options.signedBodyLimit,
    handler: (ctx) => handleUpload(ctx, options),
  };
}

export async function handleUpload(ctx: RouteContext, options: UploadRouteOptions): Promise<RouteResult> {
  const name = ctx.params.name!;
  const body: AsyncIterable<Uint8Array> = ctx.bodyStream ?? emptyBody();
  const contentType = ctx.headers['content-type'];
  const upload = ctx.upload!;
  if (isMultipart(contentType)) {
    let caller: Caller | undefined = upload.headCaller;
    const limits = caller ? options.files.limits(caller.app) : undefined;
    const stored: FileRef[] = [];
    try {
      const { results } = await parseMultipart(
        body,
        contentType!,
        { maxFiles: limits?.maxFilesPerRequest ?? 50, maxFileBytes: limits?.maxFileBytes ?? options.bodyLimit },
        async (file, fields) => {
          // Quick apps send their credentials only as form fields, which come before the file part.
          caller ??= await upload.caller(fields);
          const appLimits = options.files.limits(caller.app);
          if (stored.length >= appLimits.maxFilesPerRequest) throw svcError('uploadMalformed', `more than ${appLimits.maxFilesPerRequest} files in one request`);
          // The first file is the path's name (a mini-program's part is a temporary file); others keep their own.
          const filename = stored.length === 0 || !file.filename ? name : file.filename;
          const ref = await options.files.put(caller.app, filename, file.body, ctx.baseUrl);
          stored.push(ref);
          return ref;
        },
      );
      if (results.length === 0) throw svcError('uploadMalformed', "no file part (the SDKs name it 'file')");
      return { body: results.length === 1 ? results[0]! : results };
    } catch (error) {
      // One request stores all its files or none.
      if (caller) for (const ref of stored) await options.files.delete(caller.app, ref.url).catch(() => false);
      throw error;
    }
  }
  return { body: await options.files.put(ctx.caller.app, name, body, ctx.baseUrl) };
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}

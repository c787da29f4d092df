import { svcError } from '../core/errors.js';
import { AuthFailure } from '../http/auth.js';
import { readLimited } from '../http/body-stream.js';
import { readCredentials } from '../http/credentials.js';
import type { RouteContext, RouteDef, RouteResult } from '../http/types.js';
import type { FileRef, FileService } from './file-service.js';
import { isMultipart, parseMultipart } from './multipart.js';
import {
  type UploadAuthOptions,
  type UploadIdentity,
  authenticateUploadBody,
  authenticateUploadHead,
  formCredentials,
  isPending,
} from './upload-route-auth.js';

export interface UploadRouteOptions {
  readonly files: FileService;
  readonly auth: UploadAuthOptions;
  /** Largest body buffered to check a signature over the bytes. */
  readonly signedBodyLimit: number;
  /** The route's body limit (every file of one request, with the multipart framing). */
  readonly bodyLimit: number;
}

/**
 * `POST /2/files/:name` (and `/1/wechatApp/checkImg/:name` shares the parsing): a raw body (browser,
 * Node SDK) or multipart (mini-program, quick app, several files). The route authenticates itself
 * (`auth: 'none'` to the host kit): upload signatures come in variants the host's verifier does not
 * know (sdk-wire §2.6), and quick-app uploads carry their credentials only as form fields. Nothing is
 * stored before the caller is authenticated. See docs/files.md, "Signatures".
 */
export function uploadRoute(options: UploadRouteOptions): RouteDef {
  return {
    method: 'POST',
    path: '/2/files/:name',
    auth: 'none',
    body: 'stream',
    bodyLimit: options.bodyLimit,
    handler: (ctx) => handleUpload(ctx, `/2/files/${ctx.params.name!}`, options),
  };
}

export async function handleUpload(ctx: RouteContext, route: string, options: UploadRouteOptions): Promise<RouteResult> {
  const name = ctx.params.name!;
  const body: AsyncIterable<Uint8Array> = ctx.bodyStream ?? emptyBody();
  const headerCreds = readCredentials(ctx.headers, options.auth.headerNames);
  const contentType = ctx.headers['content-type'];
  if (isMultipart(contentType)) {
    const hasHeaderCreds = headerCreds.masterKey ?? headerCreds.applicationId ?? headerCreds.secretKey;
    let identity = hasHeaderCreds ? await headIdentity(route, ctx.headers, headerCreds, options) : undefined;
    const limits = identity ? options.files.limits(identity.app) : undefined;
    const stored: FileRef[] = [];
    try {
      const { results } = await parseMultipart(
        body,
        contentType!,
        { maxFiles: limits?.maxFilesPerRequest ?? 50, maxFileBytes: limits?.maxFileBytes ?? options.bodyLimit },
        async (file, fields) => {
          // Quick apps send their credentials only as form fields, which come before the file part.
          identity ??= await headIdentity(route, ctx.headers, { ...headerCreds, ...formCredentials(fields, options.auth.headerNames) }, options);
          const appLimits = options.files.limits(identity.app);
          if (stored.length >= appLimits.maxFilesPerRequest) throw svcError('uploadMalformed', `more than ${appLimits.maxFilesPerRequest} files in one request`);
          // The first file is the path's name (a mini-program's part is a temporary file); others keep their own.
          const filename = stored.length === 0 || !file.filename ? name : file.filename;
          const ref = await options.files.put(identity.app, filename, file.body, ctx.baseUrl);
          stored.push(ref);
          return ref;
        },
      );
      if (results.length === 0) throw svcError('uploadMalformed', "no file part (the SDKs name it 'file')");
      return { body: results.length === 1 ? results[0]! : results };
    } catch (error) {
      // One request stores all its files or none.
      if (identity) for (const ref of stored) await options.files.delete(identity.app, ref.url).catch(() => false);
      throw error;
    }
  }
  const head = await authenticateUploadHead(route, ctx.headers, headerCreds, options.auth);
  if (!isPending(head)) return { body: await options.files.put(head.app, name, body, ctx.baseUrl) };
  // The signature may cover the bytes (Node SDK strings and Buffers): buffer, check, then store.
  const bytes = (await readLimited(body, options.signedBodyLimit)) ?? new Uint8Array(0);
  const identity = authenticateUploadBody(head, bytes);
  return { body: await options.files.put(identity.app, name, [bytes], ctx.baseUrl) };
}

async function headIdentity(
  route: string,
  headers: RouteContext['headers'],
  creds: ReturnType<typeof readCredentials>,
  options: UploadRouteOptions,
): Promise<UploadIdentity> {
  const result = await authenticateUploadHead(route, headers, creds, options.auth);
  // A multipart body is never what a standard signature covers: only head variants count.
  if (isPending(result)) throw new AuthFailure('signature mismatch');
  return result;
}


async function* emptyBody(): AsyncGenerator<Uint8Array> {}

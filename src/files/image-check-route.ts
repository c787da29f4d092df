import type { Application } from '../app/application.js';
import { retryError, svcError } from '../core/errors.js';
import type { CounterStore, RateWindow } from '../counters/port.js';
import type { Clock } from '../core/clock.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import { isMultipart, parseMultipart } from './multipart.js';

/** Largest image checked: 1 MB, as the hosted service documents. */
export const IMAGE_CHECK_MAX_BYTES = 1024 * 1024;
/** Per application: 2000 a minute and 200 000 a day. */
export const IMAGE_CHECK_WINDOWS: readonly RateWindow[] = [
  { limit: 2000, windowMs: 60_000 },
  { limit: 200_000, windowMs: 86_400_000 },
];

/** The verdict of the platform's image check (issue 20's mini-program client provides one). */
export type ImageVerdict = { readonly ok: true } | { readonly ok: false; readonly platformCode: number; readonly message: string };

/** Checks images with the mini-program platform. */
export interface ImageChecker {
  check(app: Application, image: Uint8Array, filename: string): Promise<ImageVerdict>;
}

export interface ImageCheckRouteOptions {
  readonly counters: CounterStore;
  readonly clock: Clock;
  /** Without it the route answers 403/11152 once the limits passed: no verdict is made up. */
  readonly checker: ImageChecker | undefined;
}

/**
 * `POST /1/wechatApp/checkImg/:name` (multipart from a mini-program, or a raw body): authenticated
 * like an upload (`auth: 'upload'`, head signature variants only), the image at most 1 MB, 2000/min and 200 000/day per application, then the
 * platform's verdict: `{msg: 'ok'}`, or 10007 carrying the platform's code. The SDK uploads the
 * file itself afterwards.
 */
export function imageCheckRoute(options: ImageCheckRouteOptions): RouteDef {
  return {
    method: 'POST',
    path: '/1/wechatApp/checkImg/:name',
    auth: 'upload',
    body: 'stream',
    bodyLimit: IMAGE_CHECK_MAX_BYTES + 64 * 1024,
    handler: (ctx) => checkImage(ctx, options),
  };
}

async function checkImage(ctx: RouteContext, options: ImageCheckRouteOptions): Promise<RouteResult> {
  const contentType = ctx.headers['content-type'];
  const upload = ctx.upload!;
  let app: Application | undefined = upload.headCaller?.app;
  let image: Uint8Array | undefined;
  const body = ctx.bodyStream ?? (async function* () {})();
  if (isMultipart(contentType)) {
    await parseMultipart(body, contentType!, { maxFiles: 1, maxFileBytes: IMAGE_CHECK_MAX_BYTES }, async (file, fields) => {
      app ??= (await upload.caller(fields)).app;
      image = await readImage(file.body);
    });
  } else image = await readImage(body);
  // A form without a file part never showed its credentials: the headers' alone decide (401 without any).
  app ??= (await upload.caller(new Map())).app;
  if (!image || image.length === 0) throw svcError('uploadMalformed', 'no image');
  const decision = await options.counters.consume(`files:checkImg:${app.applicationId}`, IMAGE_CHECK_WINDOWS, options.clock.now());
  if (!decision.allowed) throw retryError('imageCheckRateLimited', decision.retryAfterMs);
  if (!options.checker) throw svcError('imageCheckNotConfigured');
  const verdict = await options.checker.check(app, image, ctx.params.name!);
  if (!verdict.ok) throw svcError('contentCheckFailed', `${verdict.platformCode}: ${verdict.message}`);
  return { body: { msg: 'ok' } };
}

async function readImage(body: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > IMAGE_CHECK_MAX_BYTES) throw svcError('fileTooLarge', IMAGE_CHECK_MAX_BYTES);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { svcError } from '../core/errors.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { FileService } from './file-service.js';
import { checkFileName } from './file-names.js';
import type { MediaProcessor } from './media-processor.js';

const SNAPSHOT_SCHEMA = {
  type: 'object',
  properties: {
    source: { type: 'string', minLength: 1, maxLength: 2048 },
    save_as: { type: 'string', minLength: 1, maxLength: 255 },
    point: { type: 'string', minLength: 1, maxLength: 16 },
  },
  required: ['source', 'save_as', 'point'],
} as const;

/** `HH:MM:SS` (hours any width, optional fraction) → seconds; null when malformed. */
export function parsePoint(point: string): number | null {
  const match = /^(\d{1,4}):([0-5]\d):([0-5]\d(?:\.\d{1,3})?)$/.exec(point);
  if (!match) return null;
  return Number(match[1]) * 3600 + Number(match[2]) * 60 + Number(match[3]);
}

/**
 * `POST /2/cdnVedioSnapshot {source, save_as, point}` (the path's spelling is the hosted service's):
 * one JPEG frame of a stored video of the same application, stored as `save_as`. `source` is the
 * url or path an upload answered; nothing else is fetched (no arbitrary urls: no SSRF). Replies
 * `{status_code: 200, message: 'ok', content_type, content_length, save_as: <url of the image>}`.
 * A point past the end answers 400/11148; without a media processor, 403/11149.
 */
export function snapshotRoute(files: FileService, media: MediaProcessor | undefined): RouteDef {
  return {
    method: 'POST',
    path: '/2/cdnVedioSnapshot',
    auth: 'app',
    body: 'json',
    schema: SNAPSHOT_SCHEMA,
    handler: (ctx) => takeSnapshot(ctx, files, media),
  };
}

async function takeSnapshot(ctx: RouteContext, files: FileService, media: MediaProcessor | undefined): Promise<RouteResult> {
  const { source, save_as: saveAs, point } = ctx.body as { source: string; save_as: string; point: string };
  const seconds = parsePoint(point);
  if (seconds === null) throw svcError('invalidParameter', "point must be a time as 'HH:MM:SS'");
  checkFileName(saveAs);
  if (!media) throw svcError('mediaProcessorUnavailable', 'no media processor configured');
  const available = await media.available();
  if (available !== true) throw svcError('mediaProcessorUnavailable', available);
  if (!files.keyOf(ctx.app, source)) throw svcError('fileSourceInvalid', source);
  const read = await files.open(ctx.app, source);
  if (!read) throw svcError('fileSourceInvalid', source);
  const dir = await mkdtemp(join(tmpdir(), 'svcbase-snapshot-'));
  try {
    const input = join(dir, 'input');
    await pipeline(Readable.from(read.body), createWriteStream(input));
    let frame: Uint8Array | null;
    try {
      frame = await media.snapshot(input, seconds);
    } catch (error) {
      throw svcError('snapshotFailed', read.info.filename, (error as Error).message);
    }
    if (!frame) throw svcError('snapshotPointPastEnd', point);
    const ref = await files.put(ctx.app, saveAs, [frame], ctx.baseUrl);
    return {
      body: { status_code: 200, message: 'ok', content_type: 'image/jpeg', content_length: frame.length, save_as: ref.url, filename: ref.filename, cdn: ref.cdn },
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

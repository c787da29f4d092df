import { svcError } from '../core/errors.js';
import type { RouteContext, RouteDef, RouteResult } from '../features/routes.js';
import type { FileService } from './file-service.js';
import { requireQrCode } from './optional-modules.js';
import type { Application } from '../app/application.js';

/**
 * The mini-program platform's codes (the wechat feature): the image for an application with a
 * mini-program configured, else undefined (the code is then made here).
 */
export type PlatformQr = (app: Application, iface: 'a' | 'b' | 'c', request: { path: string; width: number; scene?: string }) => Promise<Uint8Array> | undefined;

const QR_SCHEMA = {
  type: 'object',
  properties: {
    path: { type: 'string', minLength: 1, maxLength: 1024 },
    width: { type: 'integer', minimum: 180, maximum: 1280 },
    interface: { enum: ['a', 'b', 'c'] },
    scene: { type: 'string', minLength: 1, maxLength: 32 },
    type: { enum: [0, 1] },
  },
  required: ['path'],
} as const;

/** What a generated code holds: `path` (interfaces a and c), or `path?scene=<scene>` (interface b). */
export function qrContent(path: string, iface: 'a' | 'b' | 'c', scene: string | undefined): string {
  if (iface !== 'b') return path;
  return `${path}${path.includes('?') ? '&' : '?'}scene=${encodeURIComponent(scene!)}`;
}

/**
 * `POST /1/wechatApp/qr/generatecode {path, width ≥ 180, interface a|b|c, scene, type}`: the
 * platform's mini-program code when the application has a mini-program configured (`platformQr`),
 * else a QR code made here with `qrcode`. `type` 0 (default) answers `{base64: <PNG as base64>}`; 1 stores the PNG as a file of
 * the application and answers `{cdn, filename, url}`.
 */
export function qrRoute(files: FileService, platformQr?: PlatformQr): RouteDef {
  return {
    method: 'POST',
    path: '/1/wechatApp/qr/generatecode',
    auth: 'app',
    body: 'json',
    schema: QR_SCHEMA,
    handler: (ctx) => generateCode(ctx, files, platformQr),
  };
}

async function generateCode(ctx: RouteContext, files: FileService, platformQr: PlatformQr | undefined): Promise<RouteResult> {
  const body = ctx.body as { path: string; width?: number; interface?: 'a' | 'b' | 'c'; scene?: string; type?: 0 | 1 };
  const iface = body.interface ?? 'a';
  if (iface === 'b' && body.scene === undefined) throw svcError('invalidParameter', 'scene is required for interface b');
  const width = body.width ?? 430;
  const fromPlatform = platformQr?.(ctx.app, iface, { path: body.path, width, ...(body.scene !== undefined ? { scene: body.scene } : {}) });
  let png: Uint8Array;
  if (fromPlatform) png = await fromPlatform;
  else {
    const qrcode = requireQrCode();
    try {
      png = await qrcode.toBuffer(qrContent(body.path, iface, body.scene), { type: 'png', width, margin: 2, errorCorrectionLevel: 'M' });
    } catch (error) {
      throw svcError('invalidParameter', `cannot encode path as a QR code: ${(error as Error).message}`);
    }
  }
  if ((body.type ?? 0) === 0) return { body: { base64: Buffer.from(png).toString('base64') } };
  return { body: await files.put(ctx.app, 'qrcode.png', [new Uint8Array(png)], ctx.baseUrl) };
}

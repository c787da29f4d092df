import { svcError } from '../core/errors.js';
import { type Feature, type FeatureDefinition, type ServiceContext, featureKey } from '../features/contract.js';
import { deleteRoutes } from './delete-routes.js';
import { listRoute } from './list-route.js';
import { ffmpegMediaProcessor } from './ffmpeg-processor.js';
import { type FileService, createFileService } from './file-service.js';
import { type FilesApi, createFilesApi } from './files-api.js';
import { type FilesOptions, limitsFor } from './files-options.js';
import { type ImageChecker, imageCheckRoute } from './image-check-route.js';
import { localFileStore } from './local-file-store.js';
import { type PlatformQr, qrRoute } from './qr-route.js';
import { serveRoutes } from './serve-route.js';
import { snapshotRoute } from './snapshot-route.js';
import { uploadRoute } from './upload-route.js';

/** What the service hands the files feature besides its options. */
export interface FilesFeatureHost {
  /** The mini-program platform's codes for `generatecode` (the wechat feature's). */
  readonly platformQr?: PlatformQr;
}

/** What a mini-program platform feature lends the files routes (the wechat feature connects itself). */
export interface FilesPlatform {
  /** `POST /1/wechatApp/checkImg/:name`: the platform's content check. */
  readonly checkImage: ImageChecker['check'];
  /** `generatecode`: the platform's mini-program code, or undefined to draw a plain QR code. */
  readonly qrCode: PlatformQr;
}

/** The files feature's API: files by caller, and where a platform feature connects. */
export interface FilesFeatureApi extends FilesApi {
  /** Connects the platform the image check and `generatecode` use, unless the host set its own in the options. */
  connectPlatform(platform: FilesPlatform): void;
}

export interface FilesFeature extends Feature {
  /** Files for cloud functions and hosts, by caller. */
  readonly api: FilesFeatureApi;
  readonly service: FileService;
}

/**
 * Files and media: upload (`POST /2/files/:name`), serving (`GET|HEAD /files/...`), delete
 * (`DELETE /2/files/upyun//...`, `POST /2/cdnBatchDelete`), video snapshot (`POST /2/cdnVedioSnapshot`),
 * QR codes (`POST /1/wechatApp/qr/generatecode`) and image checks (`POST /1/wechatApp/checkImg/:name`).
 * See docs/files.md.
 *
 * @example createService({ ..., files: { store: localFileStore({ root: './data/files' }), limits: { quotaBytes: 1e9 } } })
 */
export function createFilesFeature(ctx: ServiceContext, options: FilesOptions & Partial<FilesFeatureHost> = {}): FilesFeature {
  const store = options.store ?? localFileStore({ root: './data/files' });
  const apps = [...ctx.applications.values()];
  // Every app's limits are checked now, so a bad limit is a start-up error, not a request's 500.
  const largest = Math.max(...apps.map((app) => {
    const limits = limitsFor(options, app);
    return limits.maxFileBytes * limits.maxFilesPerRequest;
  }));
  const files = createFileService({ store, kv: ctx.kv, clock: ctx.clock, random: ctx.random, logger: ctx.logger, options });
  const media = options.media === false ? undefined : (options.media ?? ffmpegMediaProcessor());
  let platform: FilesPlatform | undefined;
  const imageChecker: ImageChecker = options.imageChecker ?? {
    check: (app, image, name) => {
      if (!platform) throw svcError('imageCheckNotConfigured');
      return platform.checkImage(app, image, name);
    },
  };
  const platformQr: PlatformQr = options.platformQr ?? ((app, iface, request) => platform?.qrCode(app, iface, request));
  return {
    name: 'files',
    api: {
      ...createFilesApi(files, options.baseUrl),
      connectPlatform: (connected) => {
        platform = connected;
      },
    },
    service: files,
    routes: [
      uploadRoute({ files, signedBodyLimit: options.signedBodyLimit ?? 10 * 1024 * 1024, bodyLimit: largest + 64 * 1024 }),
      ...serveRoutes(store, new Set(apps.map((app) => app.namespace))),
      ...deleteRoutes(files),
      listRoute(files),
      snapshotRoute(files, media),
      qrRoute(files, platformQr),
      imageCheckRoute({ counters: ctx.counters, clock: ctx.clock, checker: imageChecker }),
    ],
    close: () => store.close?.(),
  };
}

/** The key of the files feature's API: `ctx.find(FILES)`. */
export const FILES = featureKey<FilesFeatureApi>('files');

/** Files and media as a feature definition (`createService({ files })` lists it). */
export function filesFeature(options: FilesOptions & Partial<FilesFeatureHost> = {}): FeatureDefinition<FilesFeatureApi> {
  return {
    id: FILES.id,
    init(ctx) {
      const feature = createFilesFeature(ctx, options);
      return { api: feature.api, routes: feature.routes, close: () => feature.close?.() };
    },
  };
}

export { createFilesFeature, type FilesFeature, type FilesFeatureHost } from './files-feature.js';
export { type FilesOptions, type FileLimits, DEFAULT_FILE_LIMITS } from './files-options.js';
export type { FileStore, FileMeta, StoredFileInfo, ByteRange, FileReadStream } from './file-store.js';
export { localFileStore, type LocalFileStoreOptions } from './local-file-store.js';
export type { FileRef, FileService } from './file-service.js';
export type { FilesApi, FileContent } from './files-api.js';
export type { MediaProcessor } from './media-processor.js';
export { ffmpegMediaProcessor, type FfmpegOptions } from './ffmpeg-processor.js';
export type { ImageChecker, ImageVerdict } from './image-check-route.js';

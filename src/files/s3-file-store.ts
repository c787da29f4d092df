import { requireAws4Fetch } from './optional-modules.js';
import type { ByteRange, FileMeta, FileReadStream, FileStore, StoredFileInfo } from './file-store.js';

/** Options of {@link s3FileStore}. */
export interface S3FileStoreOptions {
  /** The S3 endpoint without the bucket, e.g. `https://s3.eu-west-1.amazonaws.com`, a MinIO or R2 url. */
  readonly endpoint: string;
  readonly bucket: string;
  /** Default `us-east-1`. */
  readonly region?: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
  /**
   * Where clients fetch files directly (a public bucket or a CDN in front of it): the url is
   * `<publicBaseUrl>/<key>`. Without it (and without `presignSeconds`) svcbase serves the files.
   */
  readonly publicBaseUrl?: string;
  /**
   * Answer presigned GET urls valid this many seconds (private buckets). Such urls expire, so a File
   * column holding one stops working: prefer `publicBaseUrl` for files stored on records.
   */
  readonly presignSeconds?: number;
  /** Multipart part size in bytes (default 8 MiB, at least 5 MiB as S3 requires); smaller files are one PUT. */
  readonly partBytes?: number;
  /** The fetch to use (default the global one). */
  readonly fetch?: typeof fetch;
}

const FILENAME_HEADER = 'x-amz-meta-filename';

/**
 * Files in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, s3rver), path-style urls
 * (`<endpoint>/<bucket>/<key>`), signed with aws4fetch (SigV4, no SDK). Uploads stream in parts:
 * at most one part (`partBytes`) is held in memory; a file that fits one part is a single PUT, a
 * larger one a multipart upload that is aborted if the body fails, so nothing partial is published.
 *
 * @example
 * s3FileStore({ endpoint: 'http://127.0.0.1:9000', bucket: 'files', accessKeyId: '…', secretAccessKey: '…' })
 */
export function s3FileStore(options: S3FileStoreOptions): FileStore {
  const { AwsClient } = requireAws4Fetch();
  const client = new AwsClient({
    accessKeyId: options.accessKeyId,
    secretAccessKey: options.secretAccessKey,
    sessionToken: options.sessionToken,
    service: 's3',
    region: options.region ?? 'us-east-1',
    retries: 0,
  });
  const doFetch = options.fetch ?? fetch;
  const partBytes = Math.max(options.partBytes ?? 8 * 1024 * 1024, 5 * 1024 * 1024);
  const base = `${options.endpoint.replace(/\/+$/, '')}/${encodeURIComponent(options.bucket)}`;
  const objectUrl = (key: string) => `${base}/${key.split('/').map(encodeURIComponent).join('/')}`;
  const send = async (url: string, init: RequestInit & { headers?: Record<string, string> } = {}) => {
    const signed = await client.sign(url, init);
    return doFetch(signed);
  };
  const failed = async (what: string, res: Response) => new Error(`[svcbase] [s3] ${what} failed: ${res.status} ${(await res.text()).slice(0, 300)}`);
  const infoOf = (key: string, res: Response, size: number): StoredFileInfo => ({
    key,
    size,
    contentType: res.headers.get('content-type') ?? 'application/octet-stream',
    filename: decodeURIComponent(res.headers.get(FILENAME_HEADER) ?? ''),
    etag: res.headers.get('etag') ?? '""',
    lastModified: Date.parse(res.headers.get('last-modified') ?? '') || 0,
  });
  const stat = async (key: string): Promise<StoredFileInfo | null> => {
    const res = await send(objectUrl(key), { method: 'HEAD' });
    if (res.status === 404) return null;
    if (!res.ok) throw await failed('HEAD', res);
    return infoOf(key, res, Number(res.headers.get('content-length') ?? 0));
  };
  /** One ListObjectsV2 page of the keys under `prefix`, as the XML S3 answers. */
  const listObjects = async (prefix: string, extra: Readonly<Record<string, string>>): Promise<string> => {
    const url = new URL(base);
    url.searchParams.set('list-type', '2');
    url.searchParams.set('prefix', prefix);
    for (const [name, value] of Object.entries(extra)) url.searchParams.set(name, value);
    const res = await send(url.toString(), { method: 'GET' });
    if (!res.ok) throw await failed('ListObjectsV2', res);
    return res.text();
  };
  const metaHeaders = (meta: FileMeta) => ({ 'content-type': meta.contentType, [FILENAME_HEADER]: encodeURIComponent(meta.filename) });

  return {
    name: 's3',
    async put(key, body, meta) {
      const parts = partsOf(body, partBytes);
      const first = await parts.next();
      const firstPart = first.done ? new Uint8Array(0) : first.value;
      const second = first.done ? { done: true as const, value: undefined } : await parts.next();
      if (second.done) {
        const res = await send(objectUrl(key), { method: 'PUT', body: firstPart, headers: metaHeaders(meta) });
        if (!res.ok) throw await failed('PUT', res);
      } else {
        const start = await send(`${objectUrl(key)}?uploads`, { method: 'POST', headers: metaHeaders(meta) });
        if (!start.ok) throw await failed('CreateMultipartUpload', start);
        const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(await start.text())?.[1];
        if (!uploadId) throw new Error('[svcbase] [s3] CreateMultipartUpload answered no UploadId');
        const uploadUrl = `${objectUrl(key)}?uploadId=${encodeURIComponent(uploadId)}`;
        try {
          const etags: string[] = [];
          const putPart = async (part: Uint8Array) => {
            const res = await send(`${objectUrl(key)}?partNumber=${etags.length + 1}&uploadId=${encodeURIComponent(uploadId)}`, { method: 'PUT', body: part });
            if (!res.ok) throw await failed('UploadPart', res);
            etags.push(res.headers.get('etag') ?? '');
          };
          await putPart(firstPart);
          await putPart(second.value);
          for (let next = await parts.next(); !next.done; next = await parts.next()) await putPart(next.value);
          const xml = `<CompleteMultipartUpload>${etags.map((etag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${escapeXml(etag)}</ETag></Part>`).join('')}</CompleteMultipartUpload>`;
          const done = await send(uploadUrl, { method: 'POST', body: xml, headers: { 'content-type': 'application/xml' } });
          const text = await done.text();
          if (!done.ok || text.includes('<Error>')) throw new Error(`[svcbase] [s3] CompleteMultipartUpload failed: ${done.status} ${text.slice(0, 300)}`);
        } catch (error) {
          await send(uploadUrl, { method: 'DELETE' }).then((r) => r.body?.cancel()).catch(() => undefined);
          throw error;
        }
      }
      const info = await stat(key);
      if (!info) throw new Error(`[svcbase] [s3] ${key} is missing right after it was written`);
      return info;
    },
    async get(key, range?: ByteRange): Promise<FileReadStream | null> {
      const res = await send(objectUrl(key), { method: 'GET', headers: range ? { range: `bytes=${range.start}-${range.end}` } : {} });
      if (res.status === 404) {
        await res.body?.cancel();
        return null;
      }
      if (!res.ok) throw await failed('GET', res);
      const total = /\/(\d+)$/.exec(res.headers.get('content-range') ?? '')?.[1];
      const info = infoOf(key, res, Number(total ?? res.headers.get('content-length') ?? 0));
      return { info, body: (res.body ?? emptyStream()) as unknown as AsyncIterable<Uint8Array> };
    },
    stat,
    async delete(key) {
      if (!(await stat(key))) return false;
      const res = await send(objectUrl(key), { method: 'DELETE' });
      if (!res.ok && res.status !== 404) throw await failed('DELETE', res);
      return true;
    },
    async list(prefix, after, limit) {
      // S3's default page (1,000 keys), cut to `limit` here: one request either way, and s3rver
      // (the tests' stand-in) fails on a truncated listing's continuation token under Node 20.
      const xml = await listObjects(prefix, after ? { 'start-after': after } : {});
      const keys = [...xml.matchAll(/<Key>([^<]+)<\/Key>/g)].slice(0, limit).map((match) => unescapeXml(match[1]!));
      // The listing has no content type or file name: one HEAD per file (a page is small).
      const infos = await Promise.all(keys.map((key) => stat(key)));
      return infos.filter((info): info is StoredFileInfo => info !== null);
    },
    async usage(prefix) {
      let total = 0;
      let token: string | undefined;
      do {
        const xml = await listObjects(prefix, token ? { 'continuation-token': token } : {});
        for (const match of xml.matchAll(/<Size>(\d+)<\/Size>/g)) total += Number(match[1]);
        token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? unescapeXml(/<NextContinuationToken>([^<]+)<\/NextContinuationToken>/.exec(xml)?.[1] ?? '') : undefined;
      } while (token);
      return total;
    },
    ...(options.publicBaseUrl !== undefined
      ? { publicUrl: (key: string) => `${options.publicBaseUrl!.replace(/\/+$/, '')}/${key}` }
      : options.presignSeconds !== undefined
        ? {
            publicUrl: async (key: string) => {
              const url = new URL(objectUrl(key));
              url.searchParams.set('X-Amz-Expires', String(options.presignSeconds));
              return (await client.sign(url.toString(), { method: 'GET', aws: { signQuery: true } })).url;
            },
          }
        : {}),
  };
}

/** Re-chunks a body into parts of exactly `size` bytes (the last one shorter). */
async function* partsOf(body: AsyncIterable<Uint8Array>, size: number): AsyncGenerator<Uint8Array> {
  let buffer = new Uint8Array(size);
  let filled = 0;
  for await (let chunk of body) {
    while (chunk.length > 0) {
      const take = Math.min(size - filled, chunk.length);
      buffer.set(chunk.subarray(0, take), filled);
      filled += take;
      chunk = chunk.subarray(take);
      if (filled === size) {
        yield buffer;
        buffer = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield buffer.subarray(0, filled);
}

function emptyStream(): ReadableStream<Uint8Array> {
  return new ReadableStream({ start: (c) => c.close() });
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const unescapeXml = (text: string) => text.replace(/&quot;/g, '"').replace(/&gt;/g, '>').replace(/&lt;/g, '<').replace(/&amp;/g, '&');

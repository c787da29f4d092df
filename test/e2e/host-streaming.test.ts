import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeatureFactory, Service } from '../../src/service.js';
import { createService } from '../../src/service.js';
import { memoryStorage } from '../../src/memory.js';
import { HOSTS, type HostName, type MountedHost } from '../helpers/hosts.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';

const SERVICE_LIMIT = 64 * 1024;
const UPLOAD_LIMIT = 1024 * 1024;
const SMALL_LIMIT = 16 * 1024;
const DOWNLOAD_CHUNKS = 48;

/** 3 MiB in 64 KiB chunks made as they are read: byte i of chunk c is (c + i) % 251. */
async function* download(): AsyncGenerator<Uint8Array> {
  for (let c = 0; c < DOWNLOAD_CHUNKS; c++) {
    const chunk = new Uint8Array(64 * 1024);
    for (let i = 0; i < chunk.length; i++) chunk[i] = (c + i) % 251;
    yield chunk;
  }
}

/** Test-only upload routes: count the streamed bytes, one within a larger limit than the service's, one within a smaller. */
const countingFeature: FeatureFactory = () => {
  const count = async (stream: AsyncIterable<Uint8Array> | undefined) => {
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of stream ?? []) {
      bytes += chunk.length;
      chunks++;
    }
    return { status: 201, body: { bytes, chunks } };
  };
  return {
    name: 'test-uploads',
    routes: [
      { method: 'POST', path: '/1/test/upload', auth: 'app', body: 'stream', bodyLimit: UPLOAD_LIMIT, handler: (ctx) => count(ctx.bodyStream) },
      { method: 'POST', path: '/1/test/small-upload', auth: 'app', body: 'stream', bodyLimit: SMALL_LIMIT, handler: (ctx) => count(ctx.bodyStream) },
      {
        method: 'GET',
        path: '/1/test/download',
        auth: 'app',
        body: 'none',
        handler: () => ({ headers: { 'content-type': 'application/octet-stream', 'content-length': String(DOWNLOAD_CHUNKS * 64 * 1024) }, body: '', raw: true, stream: download() }),
      },
    ],
  };
};

interface StreamedAnswer {
  status: number;
  body: { code?: number; bytes?: number };
  sent: number;
  /** Whether the client had finished sending when the answer came. */
  finishedFirst: boolean;
}

/** Streams chunks (chunked encoding, no Content-Length) until the server answers or `total` bytes are sent. */
function streamUntilAnswered(url: string, chunkSize: number, total: number): Promise<StreamedAnswer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/octet-stream' } });
    let sent = 0;
    let answered = false;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      req.end();
    };
    req.on('response', (res) => {
      answered = true;
      const finishedFirst = finished;
      finish();
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()), sent, finishedFirst }));
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const pump = () => {
      while (!answered && sent < total) {
        sent += chunkSize;
        if (!req.write(Buffer.alloc(chunkSize, 97))) {
          req.once('drain', pump);
          return;
        }
      }
      if (!answered) finish();
    };
    pump();
  });
}

describe.each(Object.keys(HOSTS) as HostName[])('streaming bodies and per-route limits in %s', (hostName) => {
  let service: Service;
  let host: MountedHost;
  beforeAll(async () => {
    service = createService({ storage: memoryStorage(), applications: [TEST_APP], captcha: false, bodyLimit: SERVICE_LIMIT, features: [countingFeature] });
    host = await HOSTS[hostName](service);
  });
  afterAll(async () => {
    await host.close();
    await service.close();
  });

  it('a route whose own limit allows it accepts a body larger than the service limit, streamed', async () => {
    const size = 300 * 1024;
    const res = await fetch(`${host.url}/api/1/test/upload`, { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/octet-stream' }, body: new Uint8Array(size) });
    expect(res.status).toBe(201);
    expect(((await res.json()) as { bytes: number }).bytes).toBe(size);
  });

  it('a streamed response arrives whole, with its length', async () => {
    const res = await fetch(`${host.url}/api/1/test/download`, { headers: appHeaders() });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String(DOWNLOAD_CHUNKS * 64 * 1024));
    const bytes = new Uint8Array(await res.arrayBuffer());
    expect(bytes.length).toBe(DOWNLOAD_CHUNKS * 64 * 1024);
    let expected = 0;
    for await (const chunk of download()) {
      expect(Buffer.compare(Buffer.from(bytes.subarray(expected, expected + chunk.length)), Buffer.from(chunk))).toBe(0);
      expected += chunk.length;
    }
  });

  it('chunked uploads are counted as they flow', async () => {
    const answer = await streamUntilAnswered(`${host.url}/api/1/test/upload`, 8 * 1024, 256 * 1024);
    expect(answer.status).toBe(201);
    expect(answer.body.bytes).toBe(256 * 1024);
  });

  it('the service limit still holds for other routes', async () => {
    const res = await fetch(`${host.url}/api/1/classes/Big`, {
      method: 'POST',
      headers: { ...appHeaders(), 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(SERVICE_LIMIT) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: number }).code).toBe(11002);
  });

  it('a declared length over the route limit is refused before reading', async () => {
    const res = await fetch(`${host.url}/api/1/test/upload`, { method: 'POST', headers: { ...appHeaders(), 'content-type': 'application/octet-stream' }, body: new Uint8Array(UPLOAD_LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: number; error: string }).error).toContain(String(UPLOAD_LIMIT));
  });

  it('an undeclared body over the route limit gets 413 while it is still streaming', async () => {
    const answer = await streamUntilAnswered(`${host.url}/api/1/test/small-upload`, 4 * 1024, 32 * 1024 * 1024);
    expect(answer.status).toBe(413);
    expect(answer.body.code).toBe(11002);
    expect(answer.finishedFirst).toBe(false);
    expect(answer.sent).toBeLessThan(32 * 1024 * 1024);
  });

  it('the host keeps serving after a refused upload', async () => {
    await streamUntilAnswered(`${host.url}/api/1/test/small-upload`, 4 * 1024, 4 * 1024 * 1024);
    const res = await fetch(`${host.url}/api/1/timestamp`, { headers: appHeaders() });
    expect(res.status).toBe(200);
  });
});

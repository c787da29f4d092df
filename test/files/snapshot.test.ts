import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApplicationConfig } from '../../src/app/application.js';
import { ffmpegMediaProcessor } from '../../src/files/index.js';
import { TEST_APP, appHeaders } from '../helpers/server.js';
import { type FilesServer, json, startFilesServer, tempDir } from './helpers.js';

function hasFfmpeg(): boolean {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
const ffmpeg = hasFfmpeg();
// .ci/run installs ffmpeg; outside CI a machine without it skips (listed as skipped), in CI it fails.
if (!ffmpeg && process.env.CI) throw new Error('ffmpeg is required in CI (.ci/run installs it)');
if (!ffmpeg) console.warn('[snapshot.test] ffmpeg not found: video snapshot tests are SKIPPED');

const OTHER: ApplicationConfig = { applicationId: 'other-app', restApiKey: 'other-rest', masterKey: 'other-master' };

describe.skipIf(!ffmpeg)('video snapshot with ffmpeg', () => {
  let server: FilesServer;
  const temp = tempDir();
  let videoUrl = '';
  const snapshot = (body: unknown, app = TEST_APP) =>
    fetch(`${server.url}/2/cdnVedioSnapshot`, { method: 'POST', headers: { ...appHeaders(app), 'content-type': 'application/json' }, body: JSON.stringify(body) }).then(json);

  beforeAll(async () => {
    server = await startFilesServer({ media: ffmpegMediaProcessor() }, { applications: [TEST_APP, OTHER] });
    // A real 2-second video made here: ffmpeg's test pattern, H.264 in MP4.
    const video = join(temp.dir, 'clip.mp4');
    execFileSync('ffmpeg', ['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=duration=2:size=160x120:rate=10', '-pix_fmt', 'yuv420p', video]);
    const ref = await fetch(`${server.url}/2/files/clip.mp4`, { method: 'POST', headers: appHeaders(TEST_APP), body: readFileSync(video) }).then(json);
    videoUrl = ref.url;
  }, 60_000);
  afterAll(async () => {
    await server.close();
    temp.remove();
  });

  it('stores a JPEG frame of a stored video and answers the seed reply', async () => {
    const res = await snapshot({ source: videoUrl, save_as: 'frame.jpg', point: '00:00:01' });
    expect(res).toMatchObject({ status_code: 200, message: 'ok', content_type: 'image/jpeg', filename: 'frame.jpg' });
    expect(res.content_length).toBeGreaterThan(100);
    const image = new Uint8Array(await (await fetch(res.save_as)).arrayBuffer());
    expect(image.length).toBe(res.content_length);
    expect([...image.subarray(0, 3)]).toEqual([0xff, 0xd8, 0xff]);
  });

  it('a point past the end answers 11148 and stores nothing', async () => {
    const count = () => (readdirSync(server.dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.jpg')).length;
    const before = count();
    expect((await snapshot({ source: videoUrl, save_as: 'late.jpg', point: '00:00:05' })).code).toBe(11148);
    expect(count()).toBe(before);
  });

  it('refuses sources that are not a stored file of the same application (no fetching urls)', async () => {
    expect((await snapshot({ source: 'http://169.254.169.254/latest/meta-data', save_as: 'x.jpg', point: '00:00:01' })).code).toBe(11151);
    expect((await snapshot({ source: videoUrl, save_as: 'x.jpg', point: '00:00:01' }, OTHER)).code).toBe(11151);
    expect((await snapshot({ source: videoUrl, save_as: 'x.jpg', point: '1 minute' })).code).toBe(11005);
    expect((await snapshot({ source: videoUrl, save_as: '../x.jpg', point: '00:00:01' })).code).toBe(11143);
  });

  it('a stored file that is not a video answers 11150', async () => {
    const text = await fetch(`${server.url}/2/files/t.mp4`, { method: 'POST', headers: appHeaders(TEST_APP), body: 'not a video' }).then(json);
    expect((await snapshot({ source: text.url, save_as: 'x.jpg', point: '00:00:00' })).code).toBe(11150);
  });
});

describe('video snapshot without ffmpeg', () => {
  it('answers 11149 (not available) when the executable is missing or snapshots are off', async () => {
    for (const media of [ffmpegMediaProcessor({ command: '/nonexistent/ffmpeg' }), false as const]) {
      const server = await startFilesServer({ media });
      try {
        const res = await fetch(`${server.url}/2/cdnVedioSnapshot`, {
          method: 'POST',
          headers: { ...appHeaders(TEST_APP), 'content-type': 'application/json' },
          body: JSON.stringify({ source: `/2026/01/01/${'a'.repeat(32)}.mp4`, save_as: 'x.jpg', point: '00:00:01' }),
        });
        expect(res.status).toBe(403);
        expect((await json(res)).code).toBe(11149);
      } finally {
        await server.close();
      }
    }
  });
});

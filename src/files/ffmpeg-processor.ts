import { execFile } from 'node:child_process';
import type { MediaProcessor } from './media-processor.js';

/** Options of {@link ffmpegMediaProcessor}. */
export interface FfmpegOptions {
  /** The ffmpeg executable (default `ffmpeg`, looked up on PATH). */
  readonly command?: string;
  /** Longest run in ms before ffmpeg is killed (default 20 000). */
  readonly timeoutMs?: number;
  /** Largest frame in bytes read from ffmpeg (default 20 MiB). */
  readonly maxFrameBytes?: number;
}

/**
 * Video frames with ffmpeg, run through `execFile` (no shell; every argument is passed as is):
 * `ffmpeg -ss <seconds> -i <file> -frames:v 1 -f image2 -c:v mjpeg pipe:1`. Seeking past the end
 * makes ffmpeg exit 0 with no output, which this reports as `null`.
 *
 * @example createService({ ..., files: { media: ffmpegMediaProcessor({ command: '/usr/bin/ffmpeg' }) } })
 */
export function ffmpegMediaProcessor(options: FfmpegOptions = {}): MediaProcessor {
  const command = options.command ?? 'ffmpeg';
  const timeout = options.timeoutMs ?? 20_000;
  const maxBuffer = options.maxFrameBytes ?? 20 * 1024 * 1024;
  let availability: Promise<true | string> | undefined;
  const run = (args: string[]) =>
    new Promise<{ stdout: Buffer; stderr: string }>((resolve, reject) => {
      execFile(command, args, { encoding: 'buffer', timeout, maxBuffer, windowsHide: true }, (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stderr: stderr.toString('utf8') }));
        else resolve({ stdout, stderr: stderr.toString('utf8') });
      });
    });
  return {
    name: 'ffmpeg',
    available() {
      availability ??= run(['-hide_banner', '-version']).then(
        () => true as const,
        (error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? `'${command}' was not found` : `'${command}' does not run: ${error.message}`),
      );
      return availability;
    },
    async snapshot(inputPath, atSeconds) {
      const args = ['-hide_banner', '-loglevel', 'error', '-nostdin', '-ss', atSeconds.toFixed(3), '-i', inputPath, '-frames:v', '1', '-f', 'image2', '-c:v', 'mjpeg', 'pipe:1'];
      try {
        const { stdout } = await run(args);
        return stdout.length === 0 ? null : new Uint8Array(stdout);
      } catch (error) {
        const stderr = (error as { stderr?: string }).stderr ?? '';
        throw new Error(`ffmpeg failed: ${stderr.trim().split('\n').slice(-1)[0] || (error as Error).message}`);
      }
    },
  };
}

/**
 * Extracts frames from videos (the video snapshot feature). The default runs ffmpeg
 * (`ffmpegMediaProcessor`); tests or hosts may bring another. Input is a local file path that the
 * core prepared from a stored file; the processor never fetches anything.
 */
export interface MediaProcessor {
  /** Short name for logs (`ffmpeg`). */
  readonly name: string;
  /**
   * Whether the processor can run here (ffmpeg found). Returns a reason when it cannot; the
   * snapshot route then answers 403/11149 with it.
   */
  available(): Promise<true | string>;
  /**
   * One JPEG frame of the video at `inputPath`, `atSeconds` from its start. Resolves `null` when the
   * point is past the end of the video; rejects with a plain Error when the input is not a video the
   * processor can read.
   */
  snapshot(inputPath: string, atSeconds: number): Promise<Uint8Array | null>;
}

import type { Json } from '../core/wire-values.js';

const encoder = new TextEncoder();

/** One event frame: its text, and its UTF-8 bytes when a host sends those (encoded once, on first use). */
export class EventFrame {
  private bytes: Uint8Array | undefined;

  constructor(readonly text: string) {}

  get utf8(): Uint8Array {
    return (this.bytes ??= encoder.encode(this.text));
  }
}

/** Frames one EventData keeps; past it, further frames are built for each subscriber and not kept (ids are the client's choice). */
export const FRAMES_KEPT = 64;

/**
 * A changed record as one projection sees it, shared by every subscriber of that projection for one
 * change: its JSON text is written once, and each framing keeps the frames it built from it, so a
 * change fanned out to many subscribers of one view is serialised once per distinct frame, not once
 * per subscriber.
 */
export class EventData {
  private text: string | undefined;
  private readonly frames = new Map<string, EventFrame>();

  constructor(readonly value: { readonly [key: string]: Json }) {}

  /** `JSON.stringify(value)`, computed on first use. */
  get json(): string {
    return (this.text ??= JSON.stringify(this.value));
  }

  /** The frame kept under `key`, if one is. */
  kept(key: string): EventFrame | undefined {
    return this.frames.get(key);
  }

  /** Keeps `text` as the frame of `key` while fewer than {@link FRAMES_KEPT} are kept; the frame either way. */
  keep(key: string, text: string): EventFrame {
    const frame = new EventFrame(text);
    if (this.frames.size < FRAMES_KEPT) this.frames.set(key, frame);
    return frame;
  }

  /**
   * The frame `key` names (built by `build` the first time it is asked for). The first
   * {@link FRAMES_KEPT} keys are kept; a frame of another key is built on each ask.
   */
  frame(key: string, build: () => string): string {
    return (this.frames.get(key) ?? this.keep(key, build())).text;
  }
}

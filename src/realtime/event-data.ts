import type { Json } from '../core/wire-values.js';

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
  private readonly frames = new Map<string, string>();

  constructor(readonly value: { readonly [key: string]: Json }) {}

  /** `JSON.stringify(value)`, computed on first use. */
  get json(): string {
    return (this.text ??= JSON.stringify(this.value));
  }

  /** The frame kept under `key`, if one is. */
  kept(key: string): string | undefined {
    return this.frames.get(key);
  }

  /**
   * The frame `key` names (built by `build` the first time it is asked for). The first
   * {@link FRAMES_KEPT} keys are kept; a frame of another key is built on each ask.
   */
  frame(key: string, build: () => string): string {
    let frame = this.frames.get(key);
    if (frame === undefined) {
      frame = build();
      if (this.frames.size < FRAMES_KEPT) this.frames.set(key, frame);
    }
    return frame;
  }
}

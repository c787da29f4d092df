import type { Json } from '../core/wire-values.js';

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

  /** The frame `key` names (built by `build` the first time it is asked for). */
  frame(key: string, build: () => string): string {
    let frame = this.frames.get(key);
    if (frame === undefined) this.frames.set(key, (frame = build()));
    return frame;
  }
}

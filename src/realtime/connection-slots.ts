import { svcError } from '../core/errors.js';

/** Open connections per application on this instance, bounded (11162 past the limit). */
export class ConnectionSlots {
  private readonly open = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** Takes a slot for `applicationId`; returns its release function (safe to call twice). */
  reserve(applicationId: string): () => void {
    const count = this.open.get(applicationId) ?? 0;
    if (count >= this.limit) throw svcError('realtimeTooManyConnections', this.limit);
    this.open.set(applicationId, count + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = (this.open.get(applicationId) ?? 1) - 1;
      if (left <= 0) this.open.delete(applicationId);
      else this.open.set(applicationId, left);
    };
  }

  count(applicationId: string): number {
    return this.open.get(applicationId) ?? 0;
  }
}

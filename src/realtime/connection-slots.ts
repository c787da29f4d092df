import { svcError } from '../core/errors.js';
import { addressGroup } from './address-group.js';

/**
 * Open connections per application on this instance, bounded (11162 past the limit), and per client
 * address within an application (11163 past its share), so one client cannot hold every slot.
 */
export class ConnectionSlots {
  private readonly open = new Map<string, number>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly limit: number,
    private readonly perAddress: number,
  ) {}

  /**
   * Takes a slot of `applicationId` for a client at `address` (no address: only the application's
   * limit applies); returns its release function (safe to call twice).
   */
  reserve(applicationId: string, address?: string): () => void {
    const count = this.open.get(applicationId) ?? 0;
    if (count >= this.limit) throw svcError('realtimeTooManyConnections', this.limit);
    const key = address === undefined ? undefined : `${applicationId}\n${addressGroup(address)}`;
    if (key !== undefined && (this.byAddress.get(key) ?? 0) >= this.perAddress) throw svcError('realtimeTooManyConnectionsFromAddress', this.perAddress);
    increment(this.open, applicationId);
    if (key !== undefined) increment(this.byAddress, key);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      decrement(this.open, applicationId);
      if (key !== undefined) decrement(this.byAddress, key);
    };
  }

  count(applicationId: string): number {
    return this.open.get(applicationId) ?? 0;
  }
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
}

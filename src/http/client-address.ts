import { BlockList, isIP } from 'node:net';
import { configError } from '../core/errors.js';

/**
 * Which peers may name the client in `X-Forwarded-For`:
 * - `false` (default): none; the client is the socket's peer;
 * - `true`: every peer (only when nothing but your proxy can reach the server);
 * - a number `n`: the nearest `n` hops (the socket peer first) are your proxies;
 * - a list of addresses or CIDR ranges (`'10.0.0.0/8'`, `'::1'`): peers in it are your proxies.
 */
export type TrustProxy = boolean | number | readonly string[];

/** Decides, hop by hop, whether an address is one of the host's proxies. */
export type ProxyTrust = (address: string, hop: number) => boolean;

/** Compiles a {@link TrustProxy} setting once; bad list entries fail at startup, not per request. */
export function compileTrustProxy(setting: TrustProxy | undefined): ProxyTrust {
  if (setting === undefined || setting === false) return () => false;
  if (setting === true) return () => true;
  if (typeof setting === 'number') {
    if (!Number.isInteger(setting) || setting < 0) throw configError('trustProxy', `a hop count must be a non-negative integer, got ${setting}`);
    return (_address, hop) => hop < setting;
  }
  const list = new BlockList();
  for (const entry of setting) addTrusted(list, entry);
  return (address) => {
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

function addTrusted(list: BlockList, entry: string): void {
  const [address = '', bits] = entry.trim().split('/');
  const family = isIP(address);
  const prefix = bits === undefined ? undefined : Number(bits);
  const max = family === 6 ? 128 : 32;
  if (family === 0 || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= max))) {
    throw configError('trustProxy', `'${entry}' is not an IP address or CIDR range`);
  }
  const type = family === 6 ? 'ipv6' : 'ipv4';
  if (prefix === undefined) list.addAddress(address, type);
  else list.addSubnet(address, prefix, type);
  // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d: trust that spelling too.
  if (family === 4) {
    if (prefix === undefined) list.addAddress(`::ffff:${address}`, 'ipv6');
    else list.addSubnet(`::ffff:${address}`, 96 + prefix, 'ipv6');
  }
}

/**
 * The client's address: walks from the socket peer back through `X-Forwarded-For` (nearest hop
 * first) while the current hop is a trusted proxy. A malformed entry stops the walk at the proxy that
 * wrote it. Undefined only when the peer itself is unknown.
 */
export function clientAddress(peer: string | undefined, forwardedFor: string | undefined, trust: ProxyTrust): string | undefined {
  if (peer === undefined || forwardedFor === undefined) return peer;
  const hops = forwardedFor.split(',').map((hop) => hop.trim()).reverse();
  let address = peer;
  for (let hop = 0; hop < hops.length && trust(address, hop); hop++) {
    const next = hops[hop] as string;
    if (isIP(next) === 0) break;
    address = next;
  }
  return address;
}

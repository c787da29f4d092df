import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/** The flat string map Pay v2 speaks (XML on the wire). */
export type PayFields = Readonly<Record<string, string>>;

/**
 * The Pay v2 signature: the non-empty fields except `sign`, sorted by name (ASCII), joined as
 * `k=v&k=v`, then `&key=<API key>`, hashed with MD5 or HMAC-SHA256 (keyed with the API key), upper-case hex.
 */
export function payV2Sign(fields: PayFields, key: string, signType: 'MD5' | 'HMAC-SHA256'): string {
  const text = Object.keys(fields)
    .filter((name) => name !== 'sign' && fields[name] !== '' && fields[name] !== undefined)
    .sort()
    .map((name) => `${name}=${fields[name]}`)
    .join('&');
  const signed = `${text}&key=${key}`;
  const hash = signType === 'MD5' ? createHash('md5').update(signed, 'utf8') : createHmac('sha256', key).update(signed, 'utf8');
  return hash.digest('hex').toUpperCase();
}

/** Whether `fields.sign` is the signature of the other fields (constant time). */
export function payV2SignatureValid(fields: PayFields, key: string, signType: 'MD5' | 'HMAC-SHA256'): boolean {
  const given = fields.sign;
  if (typeof given !== 'string' || !/^[0-9A-F]{32}$|^[0-9A-F]{64}$/.test(given)) return false;
  const expected = payV2Sign(fields, key, signType);
  return expected.length === given.length && timingSafeEqual(Buffer.from(expected), Buffer.from(given));
}

const cdata = (value: string) => `<![CDATA[${value.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;

/** `<xml><name><![CDATA[value]]></name>...</xml>`. */
export function toPayXml(fields: PayFields): string {
  return `<xml>${Object.entries(fields)
    .map(([name, value]) => `<${name}>${cdata(value)}</${name}>`)
    .join('')}</xml>`;
}

const ENTITY: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * Reads the flat `<xml>` of Pay v2: one level of elements with text or CDATA. Anything else (a
 * DOCTYPE, entities beyond the five predefined ones, nested elements) is refused with null, so no
 * XML parser features (external entities) are reachable.
 */
export function parsePayXml(text: string): Record<string, string> | null {
  if (text.length > 64 * 1024 || /<!DOCTYPE|<!ENTITY/i.test(text)) return null;
  const outer = /^\s*(?:<\?xml[^>]*\?>\s*)?<xml>([\s\S]*)<\/xml>\s*$/.exec(text);
  if (!outer) return null;
  const out: Record<string, string> = Object.create(null) as Record<string, string>;
  const element = /\s*<([A-Za-z_][A-Za-z0-9_]{0,63})>(?:<!\[CDATA\[([\s\S]*?)\]\]>|([^<]*))<\/\1>\s*/y;
  const body = outer[1]!;
  let at = 0;
  while (at < body.length) {
    element.lastIndex = at;
    const match = element.exec(body);
    if (!match) return /^\s*$/.test(body.slice(at)) ? out : null;
    const raw = match[2] ?? match[3] ?? '';
    const value = match[2] !== undefined ? raw : raw.replace(/&(lt|gt|amp|quot|apos);/g, (_, name: string) => ENTITY[name]!);
    if (match[2] === undefined && /&(?!(lt|gt|amp|quot|apos);)/.test(raw)) return null;
    if (match[1] === '__proto__' || match[1] === 'constructor' || match[1] === 'prototype') return null;
    out[match[1]!] = value;
    at = element.lastIndex;
  }
  return out;
}

import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { svcError } from '../../core/errors.js';
import type { PayV2Settings } from '../wechat-settings.js';
import { type PayFields, parsePayXml, payV2SignatureValid, toPayXml } from './pay-v2-xml.js';

/** Posts Pay v2 XML and reads the XML reply (a port, so hosts and tests may pass their own). */
export type PayV2Transport = (url: string, xml: string, settings: PayV2Settings, options: { readonly certificate: boolean }) => Promise<string>;

/**
 * The default transport: node's http(s) client, with the merchant's PKCS#12 client certificate on
 * calls that need it (refunds), which fetch cannot present. A time limit per call (11206 past it).
 */
export const nodePayTransport: PayV2Transport = (url, xml, settings, options) =>
  new Promise((resolve, reject) => {
    const target = new URL(url);
    const tls = options.certificate && settings.certificate ? { pfx: Buffer.from(settings.certificate.pfx, 'base64'), passphrase: settings.certificate.passphrase } : {};
    const send = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target, { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8' }, timeout: settings.timeoutMs, ...tls }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > 256 * 1024) req.destroy(new Error('reply too large'));
        else chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${settings.timeoutMs} ms`)));
    req.on('error', (error) => reject(svcError('platformUnavailable', error.message)));
    req.end(xml);
  });

/**
 * One Pay v2 call: signs `fields`, posts them, checks the reply's signature (a reply that claims
 * success without a valid signature is refused) and its `return_code`/`result_code`. Business
 * failures (`result_code` FAIL) are 10003 with the platform's `err_code_des`.
 */
export async function callPayV2(
  transport: PayV2Transport,
  settings: PayV2Settings,
  path: string,
  fields: PayFields,
  sign: (fields: PayFields) => string,
  options: { readonly certificate: boolean } = { certificate: false },
): Promise<Record<string, string>> {
  const xml = toPayXml({ ...fields, sign: sign(fields) });
  let text: string;
  try {
    text = await transport(`${settings.apiBase}${path}`, xml, settings, options);
  } catch (error) {
    throw svcError('platformUnavailable', (error as Error).message);
  }
  const reply = parsePayXml(text);
  if (!reply) throw svcError('platformUnavailable', 'the payment platform answered no readable XML');
  if (reply.return_code !== 'SUCCESS') throw svcError('payRefused', `payment platform: ${reply.return_msg ?? 'FAIL'}`);
  if (!payV2SignatureValid(reply, settings.key, settings.signType)) throw svcError('platformUnavailable', 'the payment platform reply has a bad signature');
  if (reply.result_code !== 'SUCCESS') throw svcError('payRefused', `payment platform: ${reply.err_code ?? 'FAIL'} ${reply.err_code_des ?? ''}`.trim());
  return reply;
}

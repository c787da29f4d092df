import { createHash, createHmac } from 'node:crypto';

/** What TC3-HMAC-SHA256 signs: one POST of a JSON body to a Tencent Cloud API 3.0 endpoint. */
export interface Tc3Request {
  readonly secretId: string;
  readonly secretKey: string;
  /** Service name in the credential scope, e.g. `sms`. */
  readonly service: string;
  /** The Host header value (`sms.tencentcloudapi.com`, or `127.0.0.1:port` for a local fake). */
  readonly host: string;
  /** Content-Type header value, signed as is. */
  readonly contentType: string;
  /** The exact body bytes sent. */
  readonly payload: string;
  /** Unix time in SECONDS (the X-TC-Timestamp header). */
  readonly timestamp: number;
  /** Path of the request (`/`). */
  readonly path?: string;
}

const ALGORITHM = 'TC3-HMAC-SHA256';
const SIGNED_HEADERS = 'content-type;host';

/**
 * Tencent Cloud API 3.0 request signing (TC3-HMAC-SHA256), as documented by Tencent Cloud:
 * canonical request (header values trimmed and lower-cased) `POST\n/\n\ncontent-type:<ct>\nhost:<host>\n\ncontent-type;host\n<sha256 hex of body>`;
 * string to sign `TC3-HMAC-SHA256\n<timestamp>\n<date>/<service>/tc3_request\n<sha256 hex of canonical>`;
 * key chain HMAC("TC3"+secretKey, date) -> service -> "tc3_request"; date is the UTC day of the timestamp.
 * Returns the Authorization header value.
 */
export function tc3Authorization(request: Tc3Request): string {
  const date = new Date(request.timestamp * 1000).toISOString().slice(0, 10);
  const canonical = [
    'POST',
    request.path ?? '/',
    '',
    `content-type:${request.contentType.trim().toLowerCase()}\nhost:${request.host.trim().toLowerCase()}\n`,
    SIGNED_HEADERS,
    sha256Hex(request.payload),
  ].join('\n');
  const scope = `${date}/${request.service}/tc3_request`;
  const stringToSign = `${ALGORITHM}\n${request.timestamp}\n${scope}\n${sha256Hex(canonical)}`;
  const kDate = hmac(`TC3${request.secretKey}`, date);
  const kService = hmac(kDate, request.service);
  const kSigning = hmac(kService, 'tc3_request');
  const signature = createHmac('sha256', kSigning).update(stringToSign).digest('hex');
  return `${ALGORITHM} Credential=${request.secretId}/${scope}, SignedHeaders=${SIGNED_HEADERS}, Signature=${signature}`;
}

function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}

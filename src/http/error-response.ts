import { isSvcError, type SvcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { storeUnavailable, unreachableStore } from '../core/store-failure.js';
import { AuthFailure } from './auth.js';
import type { SvcResponse } from './types.js';
import { merged } from '../core/copy.js';

const JSON_TYPE = 'application/json; charset=utf-8';

/** Where a failure happened, for the log. */
export interface FailedRequest {
  readonly method: string;
  readonly path: string;
  /** The request's id, when the service assigns or echoes one (access log). */
  readonly requestId?: string;
}

/**
 * The one place failures become responses, for the request handler, the upgrade hook and every host
 * glue: coded errors with their status (and `Retry-After`), auth failures as the hosted service's
 * bare 401, a store that cannot be reached as 11230 (424, `Retry-After`), anything else a 500
 * without detail, logged.
 */
export function errorResponse(error: unknown, logger: Logger, request: FailedRequest, extraHeaders: Record<string, string> = {}): SvcResponse {
  const headers: Record<string, string> = merged(extraHeaders, { 'content-type': JSON_TYPE });
  if (isSvcError(error)) {
    if (error.retryAfter !== undefined) headers['retry-after'] = String(error.retryAfter);
    return { status: error.status, headers, body: JSON.stringify(error.toJSON()) };
  }
  if (error instanceof AuthFailure) {
    logger.debug('request refused', { reason: error.reason, method: request.method, path: request.path });
    return { status: 401, headers, body: '{"error":"unauthorized"}' };
  }
  const store = unreachableStore(error);
  if (store) {
    logger.warn('store unreachable', { store, method: request.method, path: request.path, ...(request.requestId !== undefined ? { requestId: request.requestId } : {}), error: error instanceof Error ? error.message : String(error) });
    const coded = storeUnavailable(store);
    return { status: coded.status, headers: merged(headers, { 'retry-after': String(coded.retryAfter) }), body: JSON.stringify(coded.toJSON()) };
  }
  logger.error('internal error', {
    method: request.method,
    path: request.path,
    ...(request.requestId !== undefined ? { requestId: request.requestId } : {}),
    error: error instanceof Error ? { message: error.message, stack: error.stack } : String(error),
  });
  return { status: 500, headers, body: '{"error":"internal server error"}' };
}

/** A coded error as a response, for host glue that answers before the service runs. */
export function codedResponse(error: SvcError): SvcResponse {
  return { status: error.status, headers: { 'content-type': JSON_TYPE }, body: JSON.stringify(error.toJSON()) };
}

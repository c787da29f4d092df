import { randomUUID } from 'node:crypto';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'svcbase';

/** An incoming X-Request-Id is kept only when it is short and plain; anything else gets a fresh id. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Wraps a listener: every request gets an id (the client's `X-Request-Id` when sane, else a UUID),
 * echoed in the `X-Request-Id` response header, and one info line when it ends:
 * `GET /1/classes/GameScore 200 3ms {"requestId":"..."}`. The query string is left out of the log.
 */
export function withRequestLog(listener: (req: IncomingMessage, res: ServerResponse) => void, logger: Logger): RequestListener {
  return (req, res) => {
    const started = performance.now();
    const incoming = req.headers['x-request-id'];
    const requestId = typeof incoming === 'string' && SANE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
    res.setHeader('x-request-id', requestId);
    res.once('close', () => {
      const path = (req.url ?? '/').split('?')[0];
      const ms = Math.round(performance.now() - started);
      const status = res.writableFinished ? String(res.statusCode) : 'aborted';
      logger.info(`${req.method ?? 'GET'} ${path} ${status} ${ms}ms`, { requestId });
    });
    listener(req, res);
  };
}

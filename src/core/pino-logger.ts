import type { Logger } from './logger.js';

/**
 * The part of a pino logger svcbase writes to (pino 8 to 10, and its child loggers): a level method
 * taking the fields object first and the message second. Typed by shape, so svcbase does not depend
 * on pino.
 */
export interface PinoLike {
  debug(fields: object, message: string): void;
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * svcbase's Logger over a pino logger: each entry becomes one pino line with svcbase's fields as
 * its properties and the message as `msg`, at the same level. Pass a child logger to tag the lines.
 *
 * @example
 * import pino from 'pino';
 * createService({ logger: pinoLogger(pino().child({ component: 'svcbase' })), accessLog: true, ... });
 */
export function pinoLogger(pino: PinoLike): Logger {
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
  };
}

import { ERROR_CODES, type ErrorName } from './error-codes.js';

/**
 * The one client-facing error type. Carries the service's numeric `code`, the HTTP `status` and a
 * message; rendered on the wire as `{ "code": number, "error": string }`.
 *
 * Programmer and configuration mistakes are plain `Error`s with a `[svcbase]` prefix instead.
 *
 * @example throw svcError('objectNotFound', objectId)
 */
export class SvcError extends Error {
  override readonly name = 'SvcError';
  constructor(
    readonly errorName: ErrorName,
    readonly code: number,
    readonly status: number,
    message: string,
    /** Seconds a client should wait before retrying (rate limits). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  /** The wire body. Never carries a stack. */
  toJSON(): { code: number; error: string } {
    return { code: this.code, error: this.message };
  }
}

/** Builds the error named in the code table, filling `%s` placeholders in order. */
export function svcError(name: ErrorName, ...args: Array<string | number>): SvcError {
  const entry = ERROR_CODES[name];
  return new SvcError(name, entry.code, entry.status, fillTemplate(entry.message, args));
}

/** A rate-limit error that says when to retry (seconds, rounded up, at least 1). */
export function retryError(name: ErrorName, retryAfterMs: number, ...args: Array<string | number>): SvcError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const entry = ERROR_CODES[name];
  return new SvcError(name, entry.code, entry.status, fillTemplate(entry.message, [...args, seconds]), seconds);
}

export function isSvcError(value: unknown): value is SvcError {
  return value instanceof SvcError;
}

function fillTemplate(template: string, args: ReadonlyArray<string | number>): string {
  let i = 0;
  return template.replace(/%s/g, () => (i < args.length ? String(args[i++]) : ''));
}

/** Prefix for programmer/configuration errors. */
export function configError(scope: string, message: string): Error {
  return new Error(`[svcbase] [${scope}] ${message}`);
}

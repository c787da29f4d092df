import type { StoredRecord } from '../core/values.js';
import type { Application } from './application.js';

/**
 * How a caller authenticated: application REST key, signed headers, master key, the secret key as a
 * path segment (plain-HTTP functions, captcha image), no credential (public routes such as mailed
 * links), or `internal` (the host or a cloud function acting inside the service).
 */
export type CredentialKind = 'rest' | 'signed' | 'master' | 'secret-path' | 'none' | 'internal';

/** The user a session token resolves to (filled in by the users feature). */
export interface SessionUser {
  readonly objectId: string;
  readonly record: StoredRecord;
  /** Hash of the presenting session token (lets password change keep the current session). */
  readonly sessionId: string;
  /** When the session expires, in epoch ms, when the resolver says (a realtime connection closes then). */
  readonly expiresAt?: number;
}

/**
 * Who asks a service for something: the transport-neutral identity every service takes instead of an
 * HTTP request. Route files build one per request (batch items build one per item, with the item's
 * own token); cloud functions and hosts build one with `internalCaller`.
 */
export interface Caller {
  readonly app: Application;
  readonly credential: CredentialKind;
  /** Master key presented (or an internal caller acting as master): full power, no user-table protection. */
  readonly isMaster: boolean;
  /** The session token presented, or null. */
  readonly sessionToken: string | null;
  /** The client's address when known (rate limits per address, login throttling). */
  readonly address?: string;
  /** The signed-in user of the session token, resolved once on first call; null when anonymous. */
  user(): Promise<SessionUser | null>;
}

/**
 * A caller for code running inside the service (hosts, cloud functions): master by default, anonymous.
 *
 * @example await records.create(internalCaller(app), 'Post', { title: 'hi' });
 */
export function internalCaller(app: Application, options: { readonly master?: boolean; readonly user?: SessionUser | null } = {}): Caller {
  const user = options.user ?? null;
  return {
    app,
    credential: 'internal',
    isMaster: options.master ?? true,
    sessionToken: null,
    user: async () => user,
  };
}

/** Resolves session tokens; the users feature provides one. Unknown or expired tokens give null. */
export interface SessionResolver {
  resolve(app: Application, token: string): Promise<SessionUser | null>;
}

/**
 * A caller presenting `sessionToken` with the given credential: its user is resolved through
 * `sessions` on first `user()` call, once. Route files (per request) and batch items (per item, with
 * the item's own token) build callers with it.
 */
export function sessionCaller(
  app: Application,
  init: { readonly credential: CredentialKind; readonly isMaster: boolean; readonly sessionToken: string | null; readonly address?: string | undefined },
  sessions: () => SessionResolver | undefined,
): Caller {
  return new SessionCaller(app, init, sessions);
}

/** A class rather than a literal: one per request, so one hidden class for all of them. */
class SessionCaller implements Caller {
  readonly credential: CredentialKind;
  readonly isMaster: boolean;
  readonly sessionToken: string | null;
  readonly address?: string;
  readonly #sessions: () => SessionResolver | undefined;
  #user: Promise<SessionUser | null> | undefined;

  constructor(
    readonly app: Application,
    init: { readonly credential: CredentialKind; readonly isMaster: boolean; readonly sessionToken: string | null; readonly address?: string | undefined },
    sessions: () => SessionResolver | undefined,
  ) {
    this.credential = init.credential;
    this.isMaster = init.isMaster;
    this.sessionToken = init.sessionToken;
    if (init.address !== undefined) this.address = init.address;
    this.#sessions = sessions;
  }

  user(): Promise<SessionUser | null> {
    const resolver = this.#sessions();
    if (!this.sessionToken || !resolver) return Promise.resolve(null);
    return (this.#user ??= resolver.resolve(this.app, this.sessionToken));
  }
}

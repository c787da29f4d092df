/**
 * The seed's `emailVerified` state table as a pure function.
 *
 * | State   | Moved by                    | Condition                         | Next    | Effect               |
 * |---------|-----------------------------|-----------------------------------|---------|----------------------|
 * | missing | user created or updated     | verification on, user has email   | false   | link mailed          |
 * | false   | user follows the link       | within one week                   | true    | —                    |
 * | any     | email added or changed      | verification on                   | false   | new link mailed      |
 * | false   | verification request        | user has an email                 | false   | link mailed again    |
 *
 * `missing` also holds while verification is off or the user has no email; a new user is never true.
 * svcbase fills two gaps the same way: removing the email, or changing it while verification is off,
 * makes the field missing (a flag about an address the user no longer has would be a lie).
 */

/** What happened to the user. */
export type EmailEvent =
  | { readonly kind: 'created'; readonly email: string | null }
  | { readonly kind: 'updated'; readonly previousEmail: string | null; readonly email: string | null }
  | { readonly kind: 'verify-requested'; readonly email: string | null }
  | { readonly kind: 'link-followed'; readonly linkEmail: string; readonly email: string | null; readonly linkValid: boolean };

/** The current value of the field: `missing` when absent. */
export type EmailVerifiedState = boolean | 'missing';

/** What to do: the next value (`keep` leaves the field alone) and whether to mail a link. */
export interface EmailTransition {
  readonly next: EmailVerifiedState | 'keep';
  readonly mailLink: boolean;
}

const KEEP: EmailTransition = Object.freeze({ next: 'keep', mailLink: false });

/**
 * The transition for one event. `enabled` is the application's `features.emailVerification`.
 *
 * @example emailTransition({ kind: 'created', email: 'a@b.c' }, 'missing', true) // { next: false, mailLink: true }
 */
export function emailTransition(event: EmailEvent, state: EmailVerifiedState, enabled: boolean): EmailTransition {
  switch (event.kind) {
    case 'created':
      return enabled && event.email ? { next: false, mailLink: true } : { next: 'missing', mailLink: false };
    case 'updated': {
      if (event.email === event.previousEmail) return KEEP;
      if (!event.email) return { next: 'missing', mailLink: false };
      return enabled ? { next: false, mailLink: true } : { next: 'missing', mailLink: false };
    }
    case 'verify-requested':
      // A verified user has nothing left to verify: answer ok, mail nothing.
      return enabled && event.email && state !== true ? { next: 'keep', mailLink: true } : KEEP;
    case 'link-followed':
      return event.linkValid && event.email !== null && event.email === event.linkEmail ? { next: true, mailLink: false } : KEEP;
  }
}

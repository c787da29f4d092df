import { describe, expect, it } from 'vitest';
import { emailTransition } from '../../src/users/email-state.js';

describe('emailVerified state table (pure)', () => {
  it('row 1: missing → false with a link when created with an email and the feature on', () => {
    expect(emailTransition({ kind: 'created', email: 'a@b.co' }, 'missing', true)).toEqual({ next: false, mailLink: true });
  });
  it('missing holds when the feature is off or there is no email; a new user is never true', () => {
    expect(emailTransition({ kind: 'created', email: 'a@b.co' }, 'missing', false)).toEqual({ next: 'missing', mailLink: false });
    expect(emailTransition({ kind: 'created', email: null }, 'missing', true)).toEqual({ next: 'missing', mailLink: false });
  });
  it('row 1 (update): missing → false when an email is added', () => {
    expect(emailTransition({ kind: 'updated', previousEmail: null, email: 'a@b.co' }, 'missing', true)).toEqual({ next: false, mailLink: true });
  });
  it('row 2: false → true when the link is followed for the current address', () => {
    expect(emailTransition({ kind: 'link-followed', linkEmail: 'a@b.co', email: 'a@b.co', linkValid: true }, false, true)).toEqual({ next: true, mailLink: false });
    expect(emailTransition({ kind: 'link-followed', linkEmail: 'a@b.co', email: 'a@b.co', linkValid: false }, false, true).next).toBe('keep');
    expect(emailTransition({ kind: 'link-followed', linkEmail: 'a@b.co', email: 'c@d.co', linkValid: true }, false, true).next).toBe('keep');
  });
  it('row 3: any → false with a new link when the email changes', () => {
    for (const state of [true, false, 'missing'] as const) {
      expect(emailTransition({ kind: 'updated', previousEmail: 'a@b.co', email: 'c@d.co' }, state, true)).toEqual({ next: false, mailLink: true });
    }
  });
  it('an unchanged email keeps the state; a removed one (or a change while off) makes it missing', () => {
    expect(emailTransition({ kind: 'updated', previousEmail: 'a@b.co', email: 'a@b.co' }, true, true).next).toBe('keep');
    expect(emailTransition({ kind: 'updated', previousEmail: 'a@b.co', email: null }, true, true).next).toBe('missing');
    expect(emailTransition({ kind: 'updated', previousEmail: 'a@b.co', email: 'c@d.co' }, true, false)).toEqual({ next: 'missing', mailLink: false });
  });
  it('row 4: false stays false and the link is mailed again on request; true mails nothing', () => {
    expect(emailTransition({ kind: 'verify-requested', email: 'a@b.co' }, false, true)).toEqual({ next: 'keep', mailLink: true });
    expect(emailTransition({ kind: 'verify-requested', email: 'a@b.co' }, true, true).mailLink).toBe(false);
    expect(emailTransition({ kind: 'verify-requested', email: null }, 'missing', true).mailLink).toBe(false);
  });
});

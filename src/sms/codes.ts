import type { Application, SmsTemplate } from '../app/application.js';
import type { Clock } from '../core/clock.js';
import { svcError } from '../core/errors.js';
import type { Random } from '../core/random.js';
import type { KvStore } from '../kv/port.js';
import type { CodeHasher } from './code-hasher.js';
import { smsKeys } from './keys.js';
import type { PreparedSms } from './sender.js';
import type { SmsStatusStore } from './status.js';
import { fillTemplate, templateVariables } from './template-text.js';
import { validityMs } from './templates.js';

/** Tries to find a code not live in the application before giving up (1e6 codes: collisions are rare). */
const MAX_CODE_DRAWS = 32;
const CODE = /^\d{6}$/;

/** The phone's current code, stored at `sms:cur:<app>:<phone>`. */
interface CurrentCode {
  smsId: number;
  digest: string;
  expiresAt: number;
}

/** Issues, verifies and redeems verification codes (see `createCodeBook`). */
export interface CodeBook {
  prepare(app: Application, phone: string, template: SmsTemplate, smsId: number): Promise<PreparedSms>;
  verify(app: Application, phone: string, code: string): Promise<void>;
  redeem(app: Application, code: string): Promise<string | null>;
}

export interface CodeBookDeps {
  readonly kv: KvStore;
  readonly clock: Clock;
  readonly random: Random;
  readonly hasher: CodeHasher;
  readonly status: SmsStatusStore;
}

/**
 * Verification codes: issued, checked and redeemed. Codes are 6 digits from `random`, stored only as
 * HMAC digests, unique among an application's live codes (an index by digest lets `redeem` find a code
 * without its phone), single use (the `live` token is taken with the KvStore's atomic `take`), and
 * die after `maxCodeAttempts` verification attempts (counted with the atomic `increment` BEFORE the
 * comparison, so of 50 concurrent tries at most `maxCodeAttempts` are compared and exactly one wins).
 * A new code for a phone replaces its previous one.
 */
export function createCodeBook(deps: CodeBookDeps): CodeBook {
  const { kv, clock, random, hasher, status } = deps;

  /** Reserves a fresh code for `smsId` and fills the template; commit stores it, discard frees it. */
  async function prepare(app: Application, phone: string, template: SmsTemplate, smsId: number): Promise<PreparedSms> {
    const appId = app.applicationId;
    const now = clock.now();
    const expiresAt = now + validityMs(template);
    let code = '';
    let digest = '';
    for (let draw = 0; draw < MAX_CODE_DRAWS && !code; draw++) {
      const candidate = String(random.int(1_000_000)).padStart(6, '0');
      const candidateDigest = hasher.digest(app, candidate);
      if (await kv.putIfAbsent(smsKeys.index(appId, candidateDigest), String(smsId), expiresAt, now)) {
        code = candidate;
        digest = candidateDigest;
      }
    }
    if (!code) throw new Error(`[svcbase] [sms] no free verification code after ${MAX_CODE_DRAWS} draws`);
    const values: Record<string, string> = { code };
    if (templateVariables(template.text).includes('minutes')) values.minutes = String(Math.round(validityMs(template) / 60_000));
    const filled = fillTemplate(template.text, values);
    return {
      ...filled,
      async discard() {
        await kv.delete(smsKeys.index(appId, digest));
      },
      async commit() {
        const previous = parseCurrent(await kv.get(smsKeys.current(appId, phone), clock.now()));
        if (previous && previous.smsId !== smsId) await kv.delete(smsKeys.live(appId, previous.smsId));
        await kv.put(smsKeys.live(appId, smsId), phone, expiresAt);
        const current: CurrentCode = { smsId, digest, expiresAt };
        await kv.put(smsKeys.current(appId, phone), JSON.stringify(current), expiresAt);
      },
    };
  }

  /** Consumes the phone's current code when `code` matches; 207 when wrong, used or expired; 11043 when exhausted. */
  async function verify(app: Application, phone: string, code: string): Promise<void> {
    const appId = app.applicationId;
    if (!CODE.test(code)) throw svcError('smsCodeWrong', code.slice(0, 16));
    const current = parseCurrent(await kv.get(smsKeys.current(appId, phone), clock.now()));
    if (!current) throw svcError('smsCodeWrong', code);
    const max = app.settings.sms.maxCodeAttempts;
    const attempt = await kv.increment(smsKeys.attempts(appId, current.smsId), 1, current.expiresAt, clock.now());
    if (attempt > max) throw svcError('smsCodeExhausted');
    if (!hasher.equals(hasher.digest(app, code), current.digest)) {
      if (attempt < max) throw svcError('smsCodeWrong', code);
      await kv.delete(smsKeys.live(appId, current.smsId));
      throw svcError('smsCodeExhausted');
    }
    const owner = await kv.take(smsKeys.live(appId, current.smsId), clock.now());
    if (owner !== phone) throw svcError('smsCodeWrong', code);
    await kv.delete(smsKeys.index(appId, current.digest));
    await status.markVerified(appId, current.smsId);
  }

  /** Consumes a live code of the application found by the code alone; returns its phone, or null. */
  async function redeem(app: Application, code: string): Promise<string | null> {
    const appId = app.applicationId;
    if (!CODE.test(code)) return null;
    const digest = hasher.digest(app, code);
    const smsId = Number(await kv.get(smsKeys.index(appId, digest), clock.now()));
    if (!Number.isSafeInteger(smsId) || smsId <= 0) return null;
    const phone = await kv.take(smsKeys.live(appId, smsId), clock.now());
    if (phone === null) return null;
    await kv.delete(smsKeys.index(appId, digest));
    await status.markVerified(appId, smsId);
    return phone;
  }

  return { prepare, verify, redeem };
}

function parseCurrent(text: string | null): CurrentCode | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<CurrentCode>;
    return typeof value.smsId === 'number' && typeof value.digest === 'string' && typeof value.expiresAt === 'number'
      ? { smsId: value.smsId, digest: value.digest, expiresAt: value.expiresAt }
      : null;
  } catch {
    return null;
  }
}

import { isSvcError, svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { ClassPolicy, ClassPolicyContext, ClassWriteContext, JsonObject } from '../records/class-policy.js';
import { requireSelfOrMaster } from './access.js';
import type { UsersDeps } from './deps.js';
import { mailVerifyAfterWrite } from './email-verification.js';
import { SECRET_COLUMNS } from './secret-columns.js';
import { withoutPassword } from './user-output.js';
import { signUp } from './sign-up.js';
import { USER_CLASS } from './user-table.js';
import { prepareUserWrite } from './user-write.js';

/**
 * The rules of `/1/classes/_User`, the same as `/1/users`: anyone with the application keys reads
 * (never the password); creates are sign-ups, exactly as `POST /1/users` (hashed password,
 * 202/203/209, emailVerified state machine, `sessionToken` in the answer); updates and deletes need that user's
 * session token or the master key (206); never in a batch.
 *
 * Lists of `_User`, and other tables' lists whose inner queries read `_User`, refuse queries that
 * name `password` anywhere in their plan (102), whoever asks.
 *
 * Side effects (revoking sessions after a password change or delete, mailing a verification link)
 * run after the write succeeded; a unique-index race lost in storage (401) becomes 202/203/209.
 */
export function userClassPolicy(deps: UsersDeps): ClassPolicy {
  const prepare = async (ctx: ClassWriteContext, body: JsonObject, objectId?: string) => {
    const app = ctx.caller.app;
    await deps.ready(app);
    const current = objectId === undefined ? null : await deps.users.get(app, objectId);
    if (objectId !== undefined && !current) throw svcError('objectNotFound', objectId);
    const prepared = await prepareUserWrite({
      app,
      isMaster: ctx.caller.isMaster,
      current,
      body,
      hasher: deps.hasher,
      phoneValidator: deps.phoneValidator,
    });
    await deps.users.assertAvailable(app, prepared.unique, objectId);
    // A racing writer may take the value between this check and the write: name the field then too.
    ctx.onWriteError(async (error) => {
      if (isSvcError(error) && error.errorName === 'uniqueViolation') await deps.users.assertAvailable(app, prepared.unique, objectId);
    });
    return prepared;
  };
  const username = (value: unknown, fallback: string) => (typeof value === 'string' ? value : fallback);
  return {
    allowBatch: false,
    // The same as `POST /1/users` (fix 11.5): the new user gets a session token.
    create: (caller, fields) => signUp(deps, caller, fields),
    // Lists (and inner queries of other tables' lists) must not probe the password hash.
    secretColumns: SECRET_COLUMNS,
    async beforeCreate(ctx, body) {
      const prepared = await prepare(ctx, body);
      const email = prepared.mailVerifyTo;
      if (email) {
        ctx.afterWrite((objectId) =>
          mailVerifyAfterWrite(deps, ctx.caller.app, { objectId, username: username(prepared.body.username, email), email }),
        );
      }
      return prepared.body;
    },
    async beforeUpdate(ctx, objectId, body) {
      const session = await requireSelfOrMaster(ctx.caller, objectId);
      const prepared = await prepare(ctx, body, objectId);
      const app = ctx.caller.app;
      if (prepared.passwordChanged) {
        const keep = session?.objectId === objectId ? session.sessionId : undefined;
        ctx.afterWrite(async () => void (await deps.sessions.revokeAll(app, objectId, keep)));
      }
      const email = prepared.mailVerifyTo;
      if (email) {
        ctx.afterWrite(async () => {
          const current = await deps.users.get(app, objectId);
          const to = { objectId, username: username(prepared.body.username ?? current?.username, email), email };
          await mailVerifyAfterWrite(deps, app, to);
        });
      }
      return prepared.body;
    },
    async beforeDelete(ctx, objectId) {
      await requireSelfOrMaster(ctx.caller, objectId);
      ctx.afterWrite(async () => void (await deps.sessions.revokeAll(ctx.caller.app, objectId)));
    },
    filterOutput: (_ctx, record) => withoutPassword(record),
  };
}

/**
 * `/1/classes/_Session`: master key only, for every operation; never in a batch. Should a listing
 * reach it without the master key, records show only their objectId and timestamps.
 */
export const SESSION_CLASS_POLICY: ClassPolicy = Object.freeze({
  allowBatch: false,
  filterOutput: (ctx: ClassPolicyContext, record: StoredRecord): StoredRecord =>
    ctx.caller.isMaster ? record : { objectId: record.objectId, createdAt: record.createdAt, updatedAt: record.updatedAt },
  beforeCreate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeRead: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeList: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeUpdate: (ctx: ClassPolicyContext) => requireMaster(ctx),
  beforeDelete: (ctx: ClassPolicyContext) => requireMaster(ctx),
});

function requireMaster(ctx: ClassPolicyContext): void {
  if (!ctx.caller.isMaster) throw svcError('masterKeyRequired');
}

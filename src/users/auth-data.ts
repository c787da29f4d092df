import type { Application } from '../app/application.js';
import type { Caller } from '../app/caller.js';
import { svcError } from '../core/errors.js';
import { randomHex } from '../core/random.js';
import type { StoredRecord } from '../core/values.js';
import type { Json, JsonObject } from '../core/wire-values.js';
import { AUTH_PLATFORM_NAME, type VerifiedIdentity } from './auth-providers.js';
import type { AuthLink } from './auth-links.js';
import type { UsersDeps } from './deps.js';
import type { SignUpResult } from './sign-up.js';
import { userJson } from './user-output.js';
import { insertUser } from './user-records.js';
import { prepareUserWrite } from './user-write.js';

type AuthDataValue = JsonObject | null;

/** The `authData` object of a body: platform names to objects (or null: unlink). 208 for anything else. */
export function parseAuthData(value: Json | undefined, allowUnlink: boolean): Array<[string, AuthDataValue]> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('authDataInvalid', 'authData must be an object');
  const entries = Object.entries(value);
  if (entries.length === 0) throw svcError('authDataInvalid', 'authData names no platform');
  for (const [platform, data] of entries) {
    if (!AUTH_PLATFORM_NAME.test(platform)) throw svcError('authDataInvalid', `invalid platform name '${platform.slice(0, 32)}'`);
    if (data === null && allowUnlink) continue;
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw svcError('authDataInvalid', `authData.${platform} must be an object`);
  }
  return entries as Array<[string, AuthDataValue]>;
}

async function verify(deps: UsersDeps, app: Application, platform: string, data: JsonObject): Promise<VerifiedIdentity> {
  const provider = deps.authProviders.get(platform);
  if (!provider) throw svcError('authDataInvalid', `platform '${platform}' is not supported by this server`);
  return provider.verify(app, data);
}

/** `authData` as the user itself sees it: each linked platform's stored data, `extra` over one of them. */
export function authDataOf(links: readonly AuthLink[], extra?: { platform: string; identity: VerifiedIdentity }): JsonObject {
  const out: Record<string, Json> = {};
  for (const link of links) out[link.platform] = link.data;
  if (extra) out[extra.platform] = { ...extra.identity.stored, ...extra.identity.reply };
  return out;
}

/** A user for its own eyes: the wire form, its authData (when linked) and, when given, a session token. */
export async function ownUserJson(deps: UsersDeps, app: Application, user: StoredRecord, token?: string, extra?: { platform: string; identity: VerifiedIdentity }): Promise<JsonObject> {
  const out = userJson(app, user, token);
  const links = await deps.authLinks.ofUser(app, user.objectId);
  if (links.length > 0 || extra) out.authData = authDataOf(links, extra);
  return out;
}

/**
 * Sign-up-or-login by a platform identity (`POST /1/users` or `/1/usersv1` with `{authData:
 * {<platform>: {...}}}`): the platform's provider verifies the data (208 when it proves nothing);
 * the user linked to that identity logs in (200), or a new user with a random 16-hex username is
 * created and linked (201). Two racing first logins end with one user: the link's unique index
 * decides, and the loser's fresh user is removed before it logs in as the winner.
 */
export async function authDataSignUpOrLogin(deps: UsersDeps, caller: Caller, body: JsonObject): Promise<SignUpResult> {
  const app = caller.app;
  const entries = parseAuthData(body.authData, false);
  if (entries.length !== 1) throw svcError('authDataInvalid', 'log in with one platform at a time');
  const [platform, data] = entries[0]!;
  const identity = await verify(deps, app, platform, data!);
  await deps.ready(app);
  const { authData: _authData, ...fields } = body;
  for (let attempt = 0; attempt < 3; attempt++) {
    const link = await deps.authLinks.find(app, platform, identity.id);
    if (link) {
      const user = await deps.users.get(app, link.userId);
      if (!user) {
        // The user was deleted after it was linked: the identity is free again.
        await deps.authLinks.delete(app, link);
        continue;
      }
      if (JSON.stringify(link.data) !== JSON.stringify(identity.stored)) await deps.authLinks.updateData(app, link, identity.stored);
      const { token } = await deps.sessions.create(app, user.objectId);
      const reply = await ownUserJson(deps, app, user, token, { platform, identity });
      return { kind: 'loggedIn', reply };
    }
    await deps.signUpLimit(app, caller);
    const prepared = await prepareUserWrite({
      app,
      isMaster: caller.isMaster,
      current: null,
      body: { username: randomHex(deps.random, 8), ...fields },
      hasher: deps.hasher,
      phoneValidator: deps.phoneValidator,
      phoneSignUp: true, // the platform identity stands in for a password
    });
    await deps.users.assertAvailable(app, prepared.unique);
    const user = await insertUser(deps, app, prepared.body, {}, caller);
    if (!(await deps.authLinks.insert(app, platform, identity.id, user.objectId, identity.stored))) {
      await deps.users.delete(app, user.objectId);
      continue;
    }
    const { token } = await deps.sessions.create(app, user.objectId);
    return { kind: 'created', objectId: user.objectId, reply: await ownUserJson(deps, app, user, token, { platform, identity }) };
  }
  throw svcError('authDataTaken');
}

/**
 * Links (`{<platform>: {...}}`, verified) and unlinks (`{<platform>: null}`) platform identities of
 * user `userId`; the caller was already checked to be that user or the master key. 208 when the
 * identity belongs to another user.
 */
export async function applyAuthData(deps: UsersDeps, app: Application, userId: string, value: Json | undefined): Promise<void> {
  const entries = parseAuthData(value, true);
  const verified: Array<[string, VerifiedIdentity | null]> = [];
  for (const [platform, data] of entries) verified.push([platform, data === null ? null : await verify(deps, app, platform, data)]);
  await deps.ready(app);
  for (const [platform, identity] of verified) {
    const current = (await deps.authLinks.ofUser(app, userId)).filter((link) => link.platform === platform);
    if (identity === null) {
      for (const link of current) await deps.authLinks.delete(app, link);
      continue;
    }
    const holder = await deps.authLinks.find(app, platform, identity.id);
    if (holder && holder.userId !== userId) throw svcError('authDataTaken');
    if (holder) {
      await deps.authLinks.updateData(app, holder, identity.stored);
      continue;
    }
    // One identity per platform and user: a new one replaces the old.
    for (const link of current) await deps.authLinks.delete(app, link);
    if (!(await deps.authLinks.insert(app, platform, identity.id, userId, identity.stored))) throw svcError('authDataTaken');
  }
}

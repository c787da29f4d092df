import { configError } from '../core/errors.js';
import { StoredSecret } from '../core/secrets.js';
import { type Application, type ApplicationConfig, resolveApplication } from './application.js';

/** The applications of a service, with the lookups authentication needs. */
export interface AppRegistry {
  readonly byId: ReadonlyMap<string, Application>;
  /** Finds the application whose secret key equals `secretKey` (timing-safe compare). */
  bySecretKey(secretKey: string): Application | undefined;
  /** Finds the application whose master key equals `masterKey` (timing-safe compare). */
  byMasterKey(masterKey: string): Application | undefined;
  /** Whether `candidate` is the application's REST API key (timing-safe: core/secrets.ts, StoredSecret). */
  restKeyMatches(app: Application, candidate: string): boolean;
  /** Whether `candidate` is the application's master key (timing-safe: core/secrets.ts, StoredSecret). */
  masterKeyMatches(app: Application, candidate: string): boolean;
}

interface AppKeys {
  readonly restKey: StoredSecret;
  readonly masterKey: StoredSecret;
  readonly secretKey: StoredSecret | undefined;
}

export function createAppRegistry(configs: readonly ApplicationConfig[]): AppRegistry {
  if (configs.length === 0) throw configError('app', 'createService needs at least one application');
  const byId = new Map<string, Application>();
  // Keyed in lower case: SQL databases fold identifier case, so namespaces differing only in case
  // would share tables (D4); ids differing only in case are refused with them.
  const ids = new Map<string, string>();
  const namespaces = new Map<string, string>();
  for (const config of configs) {
    const app = resolveApplication(config);
    const id = ids.get(app.applicationId.toLowerCase());
    if (id !== undefined) throw configError('app', `duplicate applicationId '${app.applicationId}' (same as '${id}' ignoring case)`);
    const namespace = namespaces.get(app.namespace.toLowerCase());
    if (namespace !== undefined) {
      throw configError('app', `two applications share the storage namespace '${app.namespace}' (namespaces are compared ignoring case)`);
    }
    byId.set(app.applicationId, app);
    ids.set(app.applicationId.toLowerCase(), app.applicationId);
    namespaces.set(app.namespace.toLowerCase(), app.namespace);
  }
  const keys = new Map<Application, AppKeys>();
  for (const app of byId.values()) {
    keys.set(app, {
      restKey: new StoredSecret(app.restApiKey),
      masterKey: new StoredSecret(app.masterKey),
      secretKey: app.secretKey === undefined ? undefined : new StoredSecret(app.secretKey),
    });
  }
  const entries = [...keys];
  // Every application is compared, so the time taken does not reveal which key matched.
  const find = (pick: (k: AppKeys) => StoredSecret | undefined, candidate: string) => {
    let found: Application | undefined;
    for (const [app, k] of entries) {
      const key = pick(k);
      if (key !== undefined && key.matches(candidate) && !found) found = app;
    }
    return found;
  };
  const keysOf = (app: Application): AppKeys => {
    const k = keys.get(app);
    if (!k) throw configError('app', `application '${app.applicationId}' is not in this registry`);
    return k;
  };
  return {
    byId,
    bySecretKey: (secretKey) => find((k) => k.secretKey, secretKey),
    byMasterKey: (masterKey) => find((k) => k.masterKey, masterKey),
    restKeyMatches: (app, candidate) => keysOf(app).restKey.matches(candidate),
    masterKeyMatches: (app, candidate) => keysOf(app).masterKey.matches(candidate),
  };
}

import { configError } from '../core/errors.js';
import { SecretDigest, secretDigestOf } from '../core/secrets.js';
import { type Application, type ApplicationConfig, resolveApplication } from './application.js';

/** The applications of a service, with the lookups authentication needs. */
export interface AppRegistry {
  readonly byId: ReadonlyMap<string, Application>;
  /** Finds the application whose secret key equals `secretKey` (timing-safe compare). */
  bySecretKey(secretKey: string): Application | undefined;
  /** Finds the application whose master key equals `masterKey` (timing-safe compare). */
  byMasterKey(masterKey: string): Application | undefined;
  /** Whether `candidate` is the application's REST API key (timing-safe, stored key hashed once). */
  restKeyMatches(app: Application, candidate: string): boolean;
  /** Whether `candidate` is the application's master key (timing-safe, stored key hashed once). */
  masterKeyMatches(app: Application, candidate: string): boolean;
}

interface AppDigests {
  readonly restKey: SecretDigest;
  readonly masterKey: SecretDigest;
  readonly secretKey: SecretDigest | undefined;
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
  const digests = new Map<Application, AppDigests>();
  for (const app of byId.values()) {
    digests.set(app, {
      restKey: new SecretDigest(app.restApiKey),
      masterKey: new SecretDigest(app.masterKey),
      secretKey: app.secretKey === undefined ? undefined : new SecretDigest(app.secretKey),
    });
  }
  const entries = [...digests];
  // Every application is compared, so the time taken does not reveal which key matched.
  const find = (pick: (d: AppDigests) => SecretDigest | undefined, value: string) => {
    const candidate = secretDigestOf(value);
    let found: Application | undefined;
    for (const [app, d] of entries) {
      const key = pick(d);
      if (key !== undefined && key.matchesDigest(candidate) && !found) found = app;
    }
    return found;
  };
  const digestsOf = (app: Application): AppDigests => {
    const d = digests.get(app);
    if (!d) throw configError('app', `application '${app.applicationId}' is not in this registry`);
    return d;
  };
  return {
    byId,
    bySecretKey: (secretKey) => find((d) => d.secretKey, secretKey),
    byMasterKey: (masterKey) => find((d) => d.masterKey, masterKey),
    restKeyMatches: (app, candidate) => digestsOf(app).restKey.matches(candidate),
    masterKeyMatches: (app, candidate) => digestsOf(app).masterKey.matches(candidate),
  };
}

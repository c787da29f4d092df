import { configError } from '../core/errors.js';
import { secretsEqual } from '../core/secrets.js';
import { type Application, type ApplicationConfig, resolveApplication } from './application.js';

/** The applications of a service, with the lookups authentication needs. */
export interface AppRegistry {
  readonly byId: ReadonlyMap<string, Application>;
  /** Finds the application whose secret key equals `secretKey` (timing-safe compare). */
  bySecretKey(secretKey: string): Application | undefined;
  /** Finds the application whose master key equals `masterKey` (timing-safe compare). */
  byMasterKey(masterKey: string): Application | undefined;
}

export function createAppRegistry(configs: readonly ApplicationConfig[]): AppRegistry {
  if (configs.length === 0) throw configError('app', 'createService needs at least one application');
  const byId = new Map<string, Application>();
  const namespaces = new Set<string>();
  for (const config of configs) {
    const app = resolveApplication(config);
    if (byId.has(app.applicationId)) throw configError('app', `duplicate applicationId '${app.applicationId}'`);
    if (namespaces.has(app.namespace)) throw configError('app', `two applications share the storage namespace '${app.namespace}'`);
    byId.set(app.applicationId, app);
    namespaces.add(app.namespace);
  }
  const apps = [...byId.values()];
  // Every candidate is compared, so the time taken does not reveal which key matched.
  const find = (pick: (app: Application) => string | undefined, value: string) => {
    let found: Application | undefined;
    for (const app of apps) {
      const key = pick(app);
      if (key !== undefined && secretsEqual(key, value) && !found) found = app;
    }
    return found;
  };
  return {
    byId,
    bySecretKey: (secretKey) => find((a) => a.secretKey, secretKey),
    byMasterKey: (masterKey) => find((a) => a.masterKey, masterKey),
  };
}

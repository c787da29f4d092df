import { type FeatureDefinition, featureKey } from '../features/contract.js';
import { SESSIONS } from '../features/sessions-key.js';
import type { SessionResolver } from '../app/caller.js';
import type { Clock } from '../core/clock.js';
import type { Random } from '../core/random.js';
import type { StorageAdapter } from '../storage/port.js';
import { type AccessChangeChannel, accessChangeChannel } from '../access/access-changes.js';
import { type Logger, silentLogger } from '../core/logger.js';
import type { EventBus } from '../events/port.js';
import { type AccessControl, createAccessControl } from '../access/access-control.js';
import type { ClassPermissionSource } from '../access/class-permission-source.js';
import { type ClassPolicy, ClassPolicyRegistry } from './class-policy.js';
import { recordsRoutes } from './records-routes.js';
import { rolePolicy } from './role-policy.js';
import { CLASS_PERMISSIONS_TABLE, type ClassPermissionStore, storageClassPermissionStore } from './class-permission-store.js';
import { createSchemaService } from './schema-service.js';
import { schemaRoutes } from './schema-routes.js';
import { bqlRoutes } from './bql-routes.js';
import { MASTER_ONLY_TABLE, type TableRule } from '../access/table-rules.js';
import { roleRoutes } from './role-routes.js';
import { ROLE_CLASS } from '../access/role-lookup.js';
import { type RecordsService, createRecordsService } from './records-service.js';

export interface RecordsOptions {
  /** Shared policy registry (default: a new one, reachable as `feature.policies`). */
  readonly policies?: ClassPolicyRegistry;
  /** Resolves a batch item's own `token` (the users feature publishes one). */
  readonly sessions?: () => SessionResolver | undefined;
  /** Class-level permissions by table (the schema API's source); every table open without it. */
  readonly classPermissions?: ClassPermissionSource;
  /** How long a user's resolved roles are reused, in ms (default 5000; `_Role` writes here clear them at once). */
  readonly roleTtlMs?: number;
}

/** What the records feature takes from the service's feature context. */
export interface RecordsFeatureContext {
  /** The observed storage (every write reaches the write pipeline). */
  readonly storage: StorageAdapter;
  readonly clock: Clock;
  readonly random: Random;
  readonly logger?: Logger;
  /** The bus shared by instances: role, class-permission and schema changes are announced on it. */
  readonly bus?: EventBus;
}

/** The records feature: its routes, its service and its class-policy hook. */
export interface RecordsFeature {
  readonly name: 'records';
  readonly routes: ReturnType<typeof recordsRoutes>;
  readonly policies: ClassPolicyRegistry;
  /** The records service (`create`, `get`, `update`, `delete`, `list` with a Caller), for hosts and other features. */
  readonly service: RecordsService;
  /** The ACL, role and class-permission decisions every records and users path applies. */
  readonly access: AccessControl;
  /** Class-level permissions as the schema API stores them (`_ClassPermissions`). */
  readonly classPermissions: ClassPermissionStore;
  /** Sets the write rules of one table (e.g. the users feature serves `_User` creates as sign-ups). */
  registerClassPolicy(className: string, policy: ClassPolicy): void;
  /**
   * Declares who reaches a table beyond its stored permissions (master-only operations, secret
   * columns; see `TableRule`): the feature that owns a system table calls it once at start-up. An
   * undeclared `_Name` table is master key only.
   */
  declareTable(className: string, rule: TableRule): void;
  /** Stops listening for other instances' access changes. */
  close(): Promise<void>;
}

/**
 * Records REST: `POST /1/classes/:table` (201 `{createdAt, objectId}` + Location),
 * `GET /1/classes/:table` (list, count, statistics: the records list service's `handleList`),
 * `GET|PUT|DELETE /1/classes/:table/:objectId` (the record with `keys`/`include`, `{updatedAt}`,
 * `{msg: "ok"}`; 101 with HTTP 404 when missing) and `POST /1/batch` (at most `settings.query.batchMax` items, run in order,
 * `{success}`/`{error}` per item, a malformed item answering 113 in its slot; `"transaction": true` runs them all-or-nothing).
 * The routes (records-routes.ts) map requests onto the records service (records-service.ts).
 *
 * @example createService({ ..., features: [(ctx, registry) => createRecordsFeature(ctx, { sessions: () => registry.sessions })] })
 */
export function createRecordsFeature(ctx: RecordsFeatureContext, options: RecordsOptions = {}): RecordsFeature {
  const policies = options.policies ?? new ClassPolicyRegistry();
  // With a bus shared by instances, role and permission writes reach the other instances' caches at once.
  let changes: AccessChangeChannel | undefined;
  const permissionStore = storageClassPermissionStore({
    storage: ctx.storage,
    clock: ctx.clock,
    random: ctx.random,
    onWrite: (table) => changes?.announce({ kind: 'classPermissions', namespace: table.namespace, className: table.className }),
  });
  const access = createAccessControl({
    storage: ctx.storage,
    clock: ctx.clock,
    classPermissions: options.classPermissions ?? permissionStore,
    ...(options.roleTtlMs === undefined ? {} : { roleTtlMs: options.roleTtlMs }),
    onRolesChanged: (namespace) => changes?.announce({ kind: 'roles', namespace }),
  });
  if (ctx.bus) {
    changes = accessChangeChannel({
      bus: ctx.bus,
      logger: ctx.logger ?? silentLogger,
      onRemote: (change) => {
        if (change.kind === 'roles') access.forgetRoles(change.namespace);
        else if (change.kind === 'classPermissions') permissionStore.forget(change);
        else ctx.storage.forgetSchema?.(change);
      },
    });
  }
  access.tables.declare(CLASS_PERMISSIONS_TABLE, MASTER_ONLY_TABLE);
  const service = createRecordsService({ storage: ctx.storage, clock: ctx.clock, random: ctx.random, policies, access });
  policies.register(ROLE_CLASS, rolePolicy());
  const routes = recordsRoutes({ records: service, policies, storage: ctx.storage, sessions: options.sessions ?? (() => undefined) });
  return {
    name: 'records',
    routes: [...routes, ...roleRoutes(service), ...bqlRoutes(service), ...schemaRoutes(createSchemaService({ storage: ctx.storage, permissions: permissionStore, systemTables: access.tables, onChange: (table) => changes?.announce({ kind: 'schema', namespace: table.namespace, className: table.className }) }))],
    policies,
    service,
    access,
    classPermissions: permissionStore,
    registerClassPolicy: (className, policy) => policies.register(className, policy),
    declareTable: (className, rule) => access.tables.declare(className, rule),
    close: async () => changes?.close(),
  };
}

/** The key of the records feature's API: `ctx.use(RECORDS)`. */
export const RECORDS = featureKey<RecordsFeature>('records');

/**
 * Records REST as a feature definition: session tokens resolve through the SESSIONS key (the users
 * feature's), found per request since users starts after records.
 */
export function recordsFeature(options: Omit<RecordsOptions, 'sessions'> = {}): FeatureDefinition<RecordsFeature> {
  return {
    id: RECORDS.id,
    init(ctx) {
      const records = createRecordsFeature(ctx, { ...options, sessions: () => ctx.find(SESSIONS) });
      return { api: records, routes: records.routes, close: () => records.close() };
    },
  };
}

import { svcError } from '../core/errors.js';
import type { Json } from '../core/wire-values.js';
import type { TableSchema } from '../query/plan.js';
import { MembershipIndex } from './membership-index.js';
import { type ParsedWhere, SharedWhere, type WhereSource, parseWhereOf } from './where-subscription.js';

/** The per-application where budgets of one instance (docs/realtime.md, "Where budgets and matching"). */
export interface WhereLimits {
  /** Most where subscriptions of one application on this instance, shared or not. */
  readonly maxWhereSubscriptionsPerApp: number;
  /** Most total cost of one application's distinct wheres on this instance (a shared where counts once). */
  readonly maxWhereCostPerApp: number;
}

/** The wheres of one application on this instance. */
interface AppWheres {
  readonly byKey: Map<string, SharedWhere>;
  readonly byClass: Map<string, ClassWheres>;
  subscriptions: number;
  cost: number;
}

/** The distinct wheres of one table, and the index that screens records against their `$in` guards. */
interface ClassWheres {
  readonly all: Set<SharedWhere>;
  readonly index: MembershipIndex<SharedWhere>;
}

/** What a where subscription asks for: its source and the schema it is parsed against now. */
export interface WhereRequest extends WhereSource {
  readonly schema: TableSchema | null;
}

/**
 * The compiled wheres of every application on this instance, shared: identical wheres (same table,
 * same where up to key order, same hidden columns) hold one {@link SharedWhere}, which a change
 * evaluates once. Counts each application's where subscriptions and the cost of its distinct wheres
 * against {@link WhereLimits}; a subscribe past either is refused with 11166 and counts nothing.
 */
export class SharedWheres {
  private readonly apps = new Map<string, AppWheres>();

  constructor(private readonly limits: WhereLimits) {}

  /**
   * A hold on the shared where of `request` (compiled now unless an identical one is already held):
   * 102/11020/11169 as the where's parse refuses it, 11166 past the application's budgets. `admit`
   * sees the where's cost first and throws to refuse it (the connection's own budget); nothing is
   * counted until every check passed. Give the hold back with {@link release}.
   */
  acquire(request: WhereRequest, admit: (cost: number) => void): SharedWhere {
    const id = request.app.applicationId;
    const state: AppWheres = this.apps.get(id) ?? { byKey: new Map(), byClass: new Map(), subscriptions: 0, cost: 0 };
    const { maxWhereSubscriptionsPerApp, maxWhereCostPerApp } = this.limits;
    if (state.subscriptions >= maxWhereSubscriptionsPerApp) {
      throw svcError('realtimeWhereOverBudget', `this application already has ${maxWhereSubscriptionsPerApp} where subscriptions on this instance (maxWhereSubscriptionsPerApp)`);
    }
    const key = whereKey(request);
    const held = state.byKey.get(key);
    // A where already held is parsed again only when this subscriber's schema or settings differ.
    const parsed: ParsedWhere | null =
      held?.sameAs(request.app.settings, request.schema) === true ? null : parseWhereOf(request.app, request.className, request.where, request.schema, request.hidden);
    const cost = held?.cost ?? parsed!.cost;
    admit(cost);
    if (!held && state.cost + cost > maxWhereCostPerApp) {
      throw svcError('realtimeWhereOverBudget', `this application's distinct wheres on this instance would cost ${state.cost + cost}, over maxWhereCostPerApp ${maxWhereCostPerApp}`);
    }
    if (held && parsed) held.adopt(request, parsed);
    let shared = held;
    if (!shared) {
      let ofClass = state.byClass.get(request.className);
      if (!ofClass) state.byClass.set(request.className, (ofClass = { all: new Set(), index: new MembershipIndex() }));
      shared = new SharedWhere(key, request, parsed!, ofClass.index);
      state.byKey.set(key, shared);
      ofClass.all.add(shared);
      state.cost += cost;
    }
    shared.refs++;
    state.subscriptions++;
    this.apps.set(id, state);
    return shared;
  }

  /** Gives back one hold on `shared` (of application `applicationId`); the last one frees it. */
  release(applicationId: string, shared: SharedWhere): void {
    const state = this.apps.get(applicationId);
    if (!state || state.byKey.get(shared.key) !== shared) return;
    state.subscriptions--;
    if (--shared.refs > 0) return;
    state.byKey.delete(shared.key);
    state.cost -= shared.cost;
    shared.unindex();
    const ofClass = state.byClass.get(shared.className);
    ofClass?.all.delete(shared);
    if (ofClass?.all.size === 0) state.byClass.delete(shared.className);
    if (state.byKey.size === 0) this.apps.delete(applicationId);
  }

  /** The distinct wheres of an application's table on this instance. */
  ofClass(applicationId: string, className: string): ReadonlySet<SharedWhere> {
    return this.apps.get(applicationId)?.byClass.get(className)?.all ?? EMPTY;
  }

  /** An application's where subscriptions, distinct wheres (of which `guarded`: screened by a membership index) and their total cost on this instance. */
  usage(applicationId: string): { subscriptions: number; wheres: number; guarded: number; cost: number } {
    const state = this.apps.get(applicationId);
    let guarded = 0;
    for (const ofClass of state?.byClass.values() ?? []) guarded += ofClass.index.size;
    return { subscriptions: state?.subscriptions ?? 0, wheres: state?.byKey.size ?? 0, guarded, cost: state?.cost ?? 0 };
  }

  clear(): void {
    this.apps.clear();
  }
}

const EMPTY: ReadonlySet<SharedWhere> = new Set();

/** The sharing key: table, hidden columns and the where as canonical JSON (object keys sorted). */
function whereKey(request: WhereRequest): string {
  return `${request.className}\n${[...request.hidden].sort().join(',')}\n${canonicalJson(request.where)}`;
}

function canonicalJson(value: Json): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const keys = Object.keys(value).sort();
  return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`).join(',')}}`;
}

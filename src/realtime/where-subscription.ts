import type { AppSettings, Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import { compilePredicate } from '../query/evaluate/index.js';
import { contextFor, type EvalEnv } from '../query/evaluate/context.js';
import { parseWhere } from '../query/parse.js';
import type { TableSchema, WhereNode } from '../query/plan.js';
import { schemaColumn } from '../query/schema-lookup.js';
import { type MembershipIndex, membershipGuard } from './membership-index.js';
import type { WhereSubscription } from './subscription.js';
import { namedColumns, whereCost } from './where-cost.js';

/** Node kinds that read other tables: a change carries one record, so these cannot be matched. */
const REFUSED: Readonly<Partial<Record<WhereNode['kind'], string>>> = {
  in_query: '$inQuery / $notInQuery',
  select: '$select / $dontSelect',
  related_to: '$relatedTo',
  acl_read: 'an access filter',
};

/** Columns every record has: never unknown to a schema. */
const SYSTEM_COLUMNS: ReadonlySet<string> = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/**
 * Parses a subscription's where against the table's schema as it is now (the same parser as REST
 * lists; errors are the same coded 102/11100). Inner queries are refused with 11169. A column
 * `hidden` from the subscriber (its view's protected fields and secret columns) cannot be named
 * (102), as in REST queries.
 */
export function parseSubscriptionWhere(
  app: Application,
  className: string,
  where: { [key: string]: Json },
  schema: TableSchema | null,
  hidden: ReadonlySet<string>,
): WhereNode {
  const node = parseWhere(where, {
    className,
    schema: (name) => (name === className ? schema : null),
    settings: app.settings,
    isSecretColumn: (table, column) => table === className && hidden.has(column),
  });
  refuseInnerQueries(node);
  return node;
}

/** Compiles a parsed where into a predicate with the reference evaluator. */
function compileNode(node: WhereNode, className: string, schema: TableSchema | null): (record: StoredRecord) => boolean {
  const env: EvalEnv = {
    className,
    records: () => [],
    relationMembers: () => new Set(),
    schema: (name) => (name === className ? schema : null),
  };
  return compilePredicate(node, contextFor(env, className));
}

function refuseInnerQueries(node: WhereNode): void {
  const refused = REFUSED[node.kind];
  if (refused) throw svcError('realtimeWhereRefused', refused);
  if (node.kind === 'and' || node.kind === 'or') for (const child of node.nodes) refuseInnerQueries(child);
}

/** What one parse of a where against one schema gives: the tree and its cost. */
export interface ParsedWhere {
  readonly node: WhereNode;
  readonly schema: TableSchema | null;
  readonly settings: AppSettings;
  readonly cost: number;
}

/** Parses a subscription's where (see {@link parseSubscriptionWhere}) and prices it ({@link whereCost}). */
export function parseWhereOf(app: Application, className: string, where: { [key: string]: Json }, schema: TableSchema | null, hidden: ReadonlySet<string>): ParsedWhere {
  const node = parseSubscriptionWhere(app, className, where, schema, hidden);
  return { node, schema, settings: app.settings, cost: whereCost(node) };
}

/** What identifies a shared where: its table, its text and the hidden columns it was checked against. */
export interface WhereSource {
  readonly app: Application;
  readonly className: string;
  readonly where: { [key: string]: Json };
  readonly hidden: ReadonlySet<string>;
}

/**
 * One compiled where, shared by every subscription of an application with the same table, where
 * (keys in any order) and hidden columns (src/realtime/shared-wheres.ts). Matching a record is
 * remembered for the last two records asked (a change's before and after), so a change costs each
 * distinct where at most two evaluations however many subscriptions share it, and none for a record
 * its table's {@link MembershipIndex} rules out (its required `$in` lists none of the record's values). When its table gains
 * a column the where names, it is compiled again (a column unknown at compile time always counts as
 * missing); columns it does not name cannot change it, so they never cost a compile.
 */
export class SharedWhere {
  /** Subscriptions holding this where (shared-wheres.ts counts them). */
  refs = 0;
  /** Its cost ({@link whereCost}) when first parsed: what it counts against its application's budget. */
  readonly cost: number;
  private predicate: (record: StoredRecord) => boolean;
  private settings: AppSettings;
  private schemaSeen: TableSchema | null;
  /** The columns the where names (system columns included). */
  readonly named: ReadonlySet<string>;
  /** Columns the where names that the schema it was compiled against lacked. */
  private unknown: readonly string[];
  private lastRecord: StoredRecord | undefined;
  private lastResult = false;
  private priorRecord: StoredRecord | undefined;
  private priorResult = false;

  constructor(
    readonly key: string,
    private source: WhereSource,
    parsed: ParsedWhere,
    /** The membership index of its application's table, which it keeps its guard in while held. */
    private readonly index: MembershipIndex<SharedWhere>,
  ) {
    this.named = namedColumns(parsed.node);
    index.set(this, membershipGuard(parsed.node));
    this.cost = parsed.cost;
    this.predicate = compileNode(parsed.node, source.className, parsed.schema);
    this.settings = parsed.settings;
    this.schemaSeen = parsed.schema;
    this.unknown = this.unknownIn(parsed.schema);
  }

  get className(): string {
    return this.source.className;
  }

  matches(record: StoredRecord): boolean {
    if (record === this.lastRecord) return this.lastResult;
    if (record === this.priorRecord) return this.priorResult;
    const result = this.index.mayMatch(this, record) && this.predicate(record);
    this.priorRecord = this.lastRecord;
    this.priorResult = this.lastResult;
    this.lastRecord = record;
    this.lastResult = result;
    return result;
  }

  /** Whether parsing this where under `settings` and `schema` gives what it was compiled from (the named columns' types agree). */
  sameAs(settings: AppSettings, schema: TableSchema | null): boolean {
    if (settings !== this.settings) return false;
    if (schema === this.schemaSeen) return true;
    for (const column of this.named) {
      const a = schemaColumn(schema, column);
      const b = schemaColumn(this.schemaSeen, column);
      if (a?.type !== b?.type || a?.targetClass !== b?.targetClass) return false;
    }
    return true;
  }

  /** Takes a newer parse of the same where (a new subscriber saw a newer schema or settings). */
  adopt(source: WhereSource, parsed: ParsedWhere): void {
    this.predicate = compileNode(parsed.node, source.className, parsed.schema);
    // A where freed while a recompile awaited its schema stays out of the index.
    if (this.refs > 0) this.index.set(this, membershipGuard(parsed.node));
    this.source = source;
    this.settings = parsed.settings;
    this.schemaSeen = parsed.schema;
    this.unknown = this.unknownIn(parsed.schema);
    this.lastRecord = this.priorRecord = undefined;
  }

  /** Whether the where names one of `columns` (system columns included). */
  namesAny(columns: ReadonlySet<string>): boolean {
    for (const column of this.named) if (columns.has(column)) return true;
    return false;
  }

  /** Takes its guard out of its table's membership index (its last hold was given back). */
  unindex(): void {
    this.index.remove(this);
  }

  /** Whether `record` holds a column this where names and was compiled without. */
  isStaleFor(record: StoredRecord): boolean {
    for (const column of this.unknown) if (Object.hasOwn(record, column)) return true;
    return false;
  }

  /** Compiles again against `schema`; on failure keeps the previous predicate (not retried for this schema) and rethrows. */
  recompile(schema: TableSchema | null): void {
    this.schemaSeen = schema;
    this.unknown = this.unknownIn(schema);
    const { app, className, where, hidden } = this.source;
    this.adopt(this.source, parseWhereOf(app, className, where, schema, hidden));
  }

  private unknownIn(schema: TableSchema | null): string[] {
    return [...this.named].filter((column) => !SYSTEM_COLUMNS.has(column) && schemaColumn(schema, column) === undefined);
  }
}

/** One where subscription of one connection: its id and its hold on a {@link SharedWhere}. */
export class SharedWhereSubscription implements WhereSubscription {
  readonly kind = 'where' as const;
  /** What it counts against its connection's where budget (the where's cost when subscribing). */
  readonly cost: number;
  readonly columns: ReadonlySet<string>;
  private released = false;

  constructor(
    readonly id: string,
    readonly shared: SharedWhere,
    /** The subscriber's hidden columns its where was checked against. */
    readonly hidden: ReadonlySet<string>,
    private readonly onRelease: () => void,
  ) {
    this.cost = shared.cost;
    this.columns = shared.named;
  }

  get className(): string {
    return this.shared.className;
  }

  matches(record: StoredRecord): boolean {
    return this.shared.matches(record);
  }

  namesAny(columns: ReadonlySet<string>): boolean {
    return this.shared.namesAny(columns);
  }

  /** Gives back its hold on the shared where (the application's budget); safe to call twice. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.onRelease();
  }
}

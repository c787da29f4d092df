import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { StoredRecord } from '../core/values.js';
import type { Json } from '../core/wire-values.js';
import { compilePredicate } from '../query/evaluate/index.js';
import { contextFor, type EvalEnv } from '../query/evaluate/context.js';
import { parseWhere } from '../query/parse.js';
import type { TableSchema, WhereNode } from '../query/plan.js';

/** Node kinds that read other tables: a change carries one record, so these cannot be matched. */
const REFUSED: Readonly<Partial<Record<WhereNode['kind'], string>>> = {
  in_query: '$inQuery / $notInQuery',
  select: '$select / $dontSelect',
  related_to: '$relatedTo',
  acl_read: 'an access filter',
};

/**
 * Parses and compiles a subscription's where against the table's schema as it is now (the same
 * parser and reference evaluator as REST lists; errors are the same coded 102/11100). Inner queries
 * are refused with 11169. A column `hidden` from the subscriber (its view's protected fields and
 * secret columns) cannot be named (102), as in REST queries.
 */
export function compileWhere(
  app: Application,
  className: string,
  where: { [key: string]: Json },
  schema: TableSchema | null,
  hidden: ReadonlySet<string>,
): (record: StoredRecord) => boolean {
  const node = parseWhere(where, {
    className,
    schema: (name) => (name === className ? schema : null),
    settings: app.settings,
    isSecretColumn: (table, column) => table === className && hidden.has(column),
  });
  refuseInnerQueries(node);
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

/** Whether `record` has a column `schema` does not know (the table grew since a where was compiled). */
export function hasUnknownColumn(schema: TableSchema | null, record: StoredRecord): boolean {
  for (const key of Object.keys(record)) {
    if (key === 'objectId' || key === 'createdAt' || key === 'updatedAt' || key === 'ACL') continue;
    if (!schema || !Object.hasOwn(schema.columns, key)) return true;
  }
  return false;
}

/**
 * A where subscription that recompiles itself when its table gained columns since it was compiled
 * (a column unknown at subscribe time would otherwise always count as missing).
 */
export class CompiledWhereSubscription {
  readonly kind = 'where' as const;
  private predicate: (record: StoredRecord) => boolean;

  constructor(
    readonly id: string,
    private readonly app: Application,
    readonly className: string,
    private readonly where: { [key: string]: Json },
    private schemaSeen: TableSchema | null,
    /** The subscriber's hidden columns when it subscribed: a where may not name them. */
    private readonly hidden: ReadonlySet<string>,
  ) {
    this.predicate = compileWhere(app, className, where, schemaSeen, hidden);
  }

  matches(record: StoredRecord): boolean {
    return this.predicate(record);
  }

  /** Whether `record` names a column this subscription was compiled without. */
  isStaleFor(record: StoredRecord): boolean {
    return hasUnknownColumn(this.schemaSeen, record);
  }

  /** Compiles again against `schema`; on failure keeps the previous predicate and rethrows. */
  recompile(schema: TableSchema | null): void {
    this.schemaSeen = schema;
    this.predicate = compileWhere(this.app, this.className, this.where, schema, this.hidden);
  }
}

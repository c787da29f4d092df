import { CLASS_OPERATIONS, type ClassOperation } from './class-permissions.js';

/**
 * What a table is, for access, beyond its stored class-level permissions: system tables declare it
 * once here (the feature that owns the table declares it at start-up), and every reader and writer
 * asks the same rule through `TableAccess`.
 */
export interface TableRule {
  /** Operations only the master key may run, whatever the stored permissions say (11006 otherwise). */
  readonly masterOnly: ReadonlySet<ClassOperation>;
  /** Columns nobody reads and no query may name, the master key included (`_User.password`). */
  readonly secretColumns: ReadonlySet<string>;
  /**
   * Whether a row without an ACL is writable by everyone (the hosted default) or by the master key
   * only (`_Role`: a role is never public-write, or anyone could add themselves). Such a row is
   * readable by everyone either way.
   */
  readonly rowsWithoutAclWritable: boolean;
  /** Whether realtime may carry the table's changes at all (`_Session` holds token hashes: never). */
  readonly realtime: boolean;
}

const NONE: ReadonlySet<string> = new Set();

/** An ordinary table: its stored permissions and ACLs decide everything. */
export const ORDINARY_TABLE: TableRule = Object.freeze({ masterOnly: new Set<ClassOperation>(), secretColumns: NONE, rowsWithoutAclWritable: true, realtime: true });

/** A table only the master key reads or writes: every system table unless it declares otherwise. */
export const MASTER_ONLY_TABLE: TableRule = Object.freeze({ masterOnly: new Set<ClassOperation>(CLASS_OPERATIONS), secretColumns: NONE, rowsWithoutAclWritable: true, realtime: true });

/** Builds a rule: `masterOnly` operations, secret columns, whether rows without an ACL are public-write, realtime. */
export function tableRule(init: {
  readonly masterOnly?: readonly ClassOperation[];
  readonly secretColumns?: readonly string[];
  readonly rowsWithoutAclWritable?: boolean;
  readonly realtime?: boolean;
}): TableRule {
  return Object.freeze({
    masterOnly: new Set(init.masterOnly ?? []),
    secretColumns: init.secretColumns && init.secretColumns.length > 0 ? new Set(init.secretColumns) : NONE,
    rowsWithoutAclWritable: init.rowsWithoutAclWritable ?? true,
    realtime: init.realtime ?? true,
  });
}

/** `_User`: read under ACLs and permissions, never its password hash. */
export const USER_TABLE_RULE = tableRule({ secretColumns: ['password'] });
/** `_Role`: read under ACLs; a role without an ACL is readable by everyone and writable by the master key only. */
export const ROLE_TABLE_RULE = tableRule({ rowsWithoutAclWritable: false });
/** `_Session`: master key only, and never carried by realtime. */
export const SESSION_TABLE_RULE = tableRule({ masterOnly: CLASS_OPERATIONS, realtime: false });

/**
 * The rules of one service's tables. A name starting with `_` that no feature declared is a system
 * table only the master key touches (fail closed); any other name is an ordinary table.
 */
export class TableRules {
  private readonly declared = new Map<string, TableRule>([
    ['_User', USER_TABLE_RULE],
    ['_Role', ROLE_TABLE_RULE],
    ['_Session', SESSION_TABLE_RULE],
  ]);

  /** Declares (or replaces) the rule of a table; the feature that owns the table calls it once. */
  declare(className: string, rule: TableRule): void {
    this.declared.set(className, rule);
  }

  /**
   * The declared system table `className` differs from only in letter case, if any. SQL folds the
   * case of table names, so such a table would take the system table's place before its feature
   * makes it (`_installation` before `_Installation`): callers refuse it (11080) before creating it.
   */
  caseVariantOf(className: string): string | undefined {
    if (!className.startsWith('_') || this.declared.has(className)) return undefined;
    const folded = className.toLowerCase();
    for (const name of this.declared.keys()) if (name.toLowerCase() === folded) return name;
    return undefined;
  }

  ruleOf(className: string): TableRule {
    return this.declared.get(className) ?? (className.startsWith('_') ? MASTER_ONLY_TABLE : ORDINARY_TABLE);
  }

  /** The declared system tables and their rules (for the docs' table and the console). */
  entries(): IterableIterator<[string, TableRule]> {
    return this.declared.entries();
  }
}

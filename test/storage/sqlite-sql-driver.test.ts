import { describe, expect, it } from 'vitest';
import { type SqlProgram, arrays, rows, runSync, transaction, write } from '../../src/storage/sql/sql-program.js';
import { loadDriver } from '../../src/storage/sqlite/sqlite-driver.js';
import { sqliteSqlDriver } from '../../src/storage/sqlite/sqlite-sql-driver.js';
import { StatementCache } from '../../src/storage/sqlite/statement-cache.js';

function open() {
  const Database = loadDriver();
  const db = new Database(':memory:');
  db.exec('CREATE TABLE t (id TEXT PRIMARY KEY, n INTEGER)');
  db.exec("INSERT INTO t VALUES ('a', 1)");
  return { db, driver: sqliteSqlDriver(db, new StatementCache(db)) };
}

const SELECT = { sql: 'SELECT id, n FROM t WHERE id = ?', parameters: ['a'] };
const ids = (db: ReturnType<typeof open>['db']) => (db.prepare('SELECT id FROM t ORDER BY id').all() as Array<{ id: string }>).map((r) => r.id);

describe('the SQLite driver of SQL programs', () => {
  it('reads one SQL text as arrays, then as objects, each in its own form (better-sqlite3 keeps raw mode per statement)', () => {
    const { driver } = open();
    function* both(): SqlProgram<[unknown[][], unknown[]]> {
      const asArrays = yield* arrays(SELECT);
      const asObjects = yield* rows(SELECT);
      return [asArrays, asObjects];
    }
    expect(runSync(both(), driver)).toEqual([[['a', 1]], [{ id: 'a', n: 1 }]]);
    expect(runSync(arrays(SELECT), driver)).toEqual([['a', 1]]);
  });

  it('answers a write with the rows it changed', () => {
    const { driver } = open();
    expect(runSync(write({ sql: 'UPDATE t SET n = n + 1 WHERE id = ?', parameters: ['a'] }), driver)).toBe(1);
    expect(runSync(write({ sql: 'UPDATE t SET n = n + 1 WHERE id = ?', parameters: ['zz'] }), driver)).toBe(0);
  });

  it('runs a transaction atomically: a failing statement undoes the ones before it', () => {
    const { db, driver } = open();
    function* twoInserts(): SqlProgram<void> {
      yield* write({ sql: 'INSERT INTO t VALUES (?, ?)', parameters: ['b', 2] });
      yield* write({ sql: 'INSERT INTO t VALUES (?, ?)', parameters: ['a', 3] }); // duplicate key
    }
    expect(() => runSync(transaction(twoInserts()), driver)).toThrow(/UNIQUE|PRIMARY KEY/);
    expect(ids(db)).toEqual(['a']);
  });

  it('nests a transaction as a savepoint: the outer program catches the inner failure and keeps its own writes', () => {
    const { db, driver } = open();
    function* outer(): SqlProgram<string> {
      yield* write({ sql: 'INSERT INTO t VALUES (?, ?)', parameters: ['c', 1] });
      try {
        yield* transaction(
          (function* (): SqlProgram<void> {
            yield* write({ sql: 'INSERT INTO t VALUES (?, ?)', parameters: ['d', 1] });
            yield* write({ sql: 'INSERT INTO t VALUES (?, ?)', parameters: ['a', 1] });
          })(),
        );
      } catch {
        return 'inner rolled back';
      }
      return 'inner committed';
    }
    expect(runSync(transaction(outer()), driver)).toBe('inner rolled back');
    expect(ids(db)).toEqual(['a', 'c']);
  });
});

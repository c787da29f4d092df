import { describe, expect, it } from 'vitest';
import { type DriverOp, type SqlProgram, bindAsync, bindSync, rows, runAsync, runSync, write } from '../../src/storage/sql/sql-program.js';

/** Counts rows, then records the count; a failing write is caught by the program and answered as -1. */
function* countThenRecord(table: string): SqlProgram<number> {
  const found = yield* rows({ sql: `SELECT n FROM ${table}`, parameters: [] });
  try {
    yield* write({ sql: `INSERT INTO log VALUES (?)`, parameters: [found.length] });
  } catch {
    return -1;
  }
  return found.length;
}

/** A driver over a script: the rows of each SELECT, and a write that fails when told to. */
function scripted(failWrites: boolean) {
  const seen: string[] = [];
  const perform = (op: DriverOp): unknown => {
    if (op.op === 'transaction') throw new Error('no transaction in this script');
    seen.push(`${op.op}: ${op.query.sql} ${JSON.stringify(op.query.parameters)}`);
    if (op.op === 'rows') return [{ n: 1 }, { n: 2 }];
    if (failWrites) throw new Error('disk full');
    return undefined;
  };
  return { seen, perform };
}

describe('SQL programs', () => {
  it('run synchronously: each operation answered in order, the result returned without a promise', () => {
    const driver = scripted(false);
    const result = runSync(countThenRecord('t'), driver);
    expect(result).toBe(2);
    expect(driver.seen).toEqual(['rows: SELECT n FROM t []', 'write: INSERT INTO log VALUES (?) [2]']);
  });

  it('run asynchronously with the same operations and result', async () => {
    const driver = scripted(false);
    const result = await runAsync(countThenRecord('t'), { perform: async (op) => driver.perform(op) });
    expect(result).toBe(2);
    expect(driver.seen).toEqual(['rows: SELECT n FROM t []', 'write: INSERT INTO log VALUES (?) [2]']);
  });

  it('throw a driver error into the program, where it can be caught (sync and async)', async () => {
    expect(runSync(countThenRecord('t'), scripted(true))).toBe(-1);
    const failing = scripted(true);
    expect(await runAsync(countThenRecord('t'), { perform: async (op) => failing.perform(op) })).toBe(-1);
  });

  it('let an uncaught driver error out of the runner', async () => {
    function* select(): SqlProgram<unknown> {
      return yield* rows({ sql: 'SELECT 1', parameters: [] });
    }
    const broken = { perform: (): unknown => { throw new Error('gone'); } };
    expect(() => runSync(select(), broken)).toThrow('gone');
    await expect(runAsync(select(), { perform: async () => broken.perform() })).rejects.toThrow('gone');
  });

  it('bind a set of programs to a driver: sync answers values, async answers promises', async () => {
    const programs = { countThenRecord };
    expect(bindSync(programs, scripted(false)).countThenRecord('t')).toBe(2);
    const driver = scripted(false);
    const pending = bindAsync(programs, { perform: async (op) => driver.perform(op) }).countThenRecord('t');
    expect(pending).toBeInstanceOf(Promise);
    expect(await pending).toBe(2);
  });
});

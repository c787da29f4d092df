import type { SqliteDatabase, SqliteStatement } from './database-shape.js';

/**
 * Notices schema changes made by other connections (another process sharing the file) through
 * SQLite's schema cookie, `PRAGMA schema_version`, which every CREATE, ALTER and DROP of any
 * connection bumps. Every table or column the adapter adds is DDL, so a new cookie means cached
 * schemas may be stale.
 *
 * Reading the cookie costs about as much as a small query, so `changed()` reads it at most once
 * per event-loop turn (each HTTP request starts in a new turn): a change committed elsewhere is
 * seen from the next turn on. Schema writes do not rely on it: they re-read the schema inside
 * their IMMEDIATE transaction and `settle()` the cookie there.
 */
export class SchemaVersion {
  private readonly read: SqliteStatement;
  private known: number | undefined;
  private checkedThisTurn = false;
  private readonly endTurn = () => {
    this.checkedThisTurn = false;
  };

  constructor(db: SqliteDatabase) {
    this.read = db.prepare('PRAGMA schema_version');
  }

  /** Whether the cookie moved since it was last seen (at most one read per turn; false otherwise). */
  changed(): boolean {
    if (this.checkedThisTurn) return false;
    this.checkedThisTurn = true;
    setImmediate(this.endTurn).unref();
    return this.update();
  }

  /** Reads the cookie now (inside a write transaction: nobody else can move it); true when it moved. */
  update(): boolean {
    const current = (this.read.get() as { schema_version: number }).schema_version;
    const moved = current !== this.known;
    this.known = current;
    return moved;
  }

  /** Forgets the cookie, so the next check reports a change (after a rollback). */
  forget(): void {
    this.known = undefined;
  }
}

/** One step that reverts one write. */
type Undo = () => unknown;

/**
 * The transaction fallback of `createStorageAdapter`: while a transaction is open, every write
 * first records how to revert itself; a failing transaction (or savepoint) reverts its writes
 * newest first. All-or-nothing against errors and, because the factory runs one operation at a time,
 * isolated from other callers; not against a crash of the process in the middle of a transaction.
 */
export class UndoJournal {
  private steps: Undo[] | null = null;

  /** Records how to revert the write about to happen (nothing outside a transaction). */
  record(undo: Undo): void {
    this.steps?.push(undo);
  }

  /** Runs `work` as a transaction, or as a savepoint of the open one. */
  async atomically<T>(work: () => Promise<T>): Promise<T> {
    const outer = this.steps === null;
    if (outer) this.steps = [];
    const mark = this.steps!.length;
    try {
      return await work();
    } catch (error) {
      await this.revertTo(mark);
      throw error;
    } finally {
      if (outer) this.steps = null;
    }
  }

  private async revertTo(mark: number): Promise<void> {
    const steps = this.steps!;
    while (steps.length > mark) await steps.pop()!();
  }
}

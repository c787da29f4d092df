import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryConformanceCases } from '../../../query/conformance/cases.js';
import type { Awaitable, StorageAdapter } from '../../port.js';
import { expectedOutcome, runQueryCase, seedQueryDataset } from './run-case.js';

export { queryConformanceCases, caseSearchParams, type QueryConformanceCase, type CaseParams } from '../../../query/conformance/cases.js';
export { CONFORMANCE_TABLES, PLAYER, TEAM, type ConformanceTable } from '../../../query/conformance/dataset.js';
export { CONFORMANCE_SETTINGS, expectedOutcome, runQueryCase, seedQueryDataset, type CaseOutcome } from './run-case.js';

/**
 * Registers the query conformance suite (vitest `it` blocks) for an adapter: call it inside a
 * `describe`. The factory's adapter is seeded once in a fresh namespace, then dropped and closed.
 * Every adapter must return exactly the rows, order and values the reference evaluator returns.
 *
 * @example describe('sqlite', () => runQueryConformance(() => openSqlite(':memory:')))
 */
export function runQueryConformance(factory: () => Awaitable<StorageAdapter>, options: { namespace?: string } = {}): void {
  const namespace = options.namespace ?? 'qconf';
  describe('query conformance', () => {
    let adapter: StorageAdapter;
    beforeAll(async () => {
      adapter = await factory();
      await seedQueryDataset(adapter, namespace);
    });
    afterAll(async () => {
      await adapter.dropNamespace(namespace);
      await adapter.close();
    });
    for (const c of queryConformanceCases) {
      it(c.name, async () => {
        expect(await runQueryCase(adapter, namespace, c)).toEqual(expectedOutcome(c));
      });
    }
  });
}

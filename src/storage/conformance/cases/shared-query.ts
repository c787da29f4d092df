import { expect } from 'vitest';
import { type QueryConformanceCase, queryConformanceCases } from '../../../query/conformance/cases.js';
import { expectedOutcome, runQueryCase, seedQueryDataset } from '../query/run-case.js';
import type { Harness } from '../harness.js';

/**
 * The query engine's shared cases (data in src/query/conformance, runner in ../query): wire queries with hand-computed answers,
 * parsed once and run through the adapter's find, count and aggregate over the shared data set.
 */
export function sharedQueryCases(h: Harness): void {
  for (const c of queryConformanceCases) {
    h.test(`query (shared): ${c.name}`, async () => {
      const namespace = h.ref().namespace;
      await seedQueryDataset(h.adapter(), namespace);
      expect(await runQueryCase(h.adapter(), namespace, c)).toEqual(expectedOutcome(c));
    });
  }
}

import { expect } from 'vitest';
import { expectedOutcome, runQueryCase, seedQueryDataset } from '../../../query/conformance/run-case.js';
import { type QueryConformanceCase, queryConformanceCases } from '../../../query/conformance/cases.js';
import type { Harness } from '../harness.js';

/**
 * The query engine's shared cases (src/query/conformance): wire queries with hand-computed answers,
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

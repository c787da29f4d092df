import { expect } from 'vitest';
import { type CaseOutcome, runQueryCase, seedQueryDataset } from '../../../query/conformance/run-case.js';
import { type QueryConformanceCase, queryConformanceCases } from '../../../query/conformance/cases.js';
import type { Harness } from '../harness.js';

function expected(c: QueryConformanceCase): CaseOutcome {
  const out: CaseOutcome = {};
  if (c.ids) out.ids = [...c.ids];
  if (c.count !== undefined) out.count = c.count;
  if (c.rows) out.rows = c.rows.map((r) => ({ ...r }));
  if (c.fields) out.fields = [...c.fields];
  return out;
}

/**
 * The query engine's shared cases (src/query/conformance): wire queries with hand-computed answers,
 * parsed once and run through the adapter's find, count and aggregate over the shared data set.
 */
export function sharedQueryCases(h: Harness): void {
  for (const c of queryConformanceCases) {
    h.test(`query (shared): ${c.name}`, async () => {
      const namespace = h.ref().namespace;
      await seedQueryDataset(h.adapter(), namespace);
      expect(await runQueryCase(h.adapter(), namespace, c)).toEqual(expected(c));
    });
  }
}

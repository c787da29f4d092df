import { describe } from 'vitest';
import { beforeImageCases } from './cases/before-image.js';
import { updateWithoutReturningCases } from './cases/update-without-returning.js';
import { concurrencyCases } from './cases/concurrency.js';
import { crudCases } from './cases/crud.js';
import { fieldOpCases } from './cases/field-ops.js';
import { indexCases } from './cases/indexes.js';
import { queryCases } from './cases/query.js';
import { relationCases } from './cases/relations.js';
import { schemaCases } from './cases/schema.js';
import { schemaDropCases } from './cases/schema-drops.js';
import { schemaRuleCases } from './cases/schema-rules.js';
import { sharedQueryCases } from './cases/shared-query.js';
import { transactionCases } from './cases/transactions.js';
import { valueCases } from './cases/values.js';
import { type StorageConformanceOptions, createHarness } from './harness.js';

export type { Harness, StorageConformanceOptions } from './harness.js';
export { runQueryConformance, queryConformanceCases, caseSearchParams, type QueryConformanceCase, type CaseParams } from './query/index.js';

/**
 * Registers the storage conformance suite (vitest `describe`/`it` blocks) for an adapter factory:
 * CRUD, every field operation, typed values, schema and type errors (111), name-case and size rules
 * (11080-11083), the optional drops, relations, unique indexes
 * (401), transactions, the update before-image (when declared), concurrency, and the query suite. Call it at the top level of a test file.
 * A fresh adapter is created before every test and closed (then `destroy`ed) after it; every test
 * works in its own namespace.
 *
 * @example
 * import { runStorageConformance } from 'svcbase/testing';
 * runStorageConformance({ name: 'my-adapter', create: () => myAdapter(), skip: { reason: 'no transactions', tests: [] } });
 */
export function runStorageConformance(options: StorageConformanceOptions): void {
  describe(`storage conformance: ${options.name}`, () => {
    const h = createHarness(options);
    crudCases(h);
    fieldOpCases(h);
    valueCases(h);
    schemaCases(h);
    schemaRuleCases(h);
    schemaDropCases(h);
    relationCases(h);
    indexCases(h);
    transactionCases(h);
    beforeImageCases(h);
    updateWithoutReturningCases(h);
    concurrencyCases(h);
    queryCases(h);
    sharedQueryCases(h);
  });
}

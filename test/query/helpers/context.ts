import type { ParseContext, QuerySettings } from '../../../src/query/parse.js';
import { CONFORMANCE_SETTINGS } from '../../../src/storage/conformance/query/run-case.js';
import { CONFORMANCE_TABLES } from '../../../src/query/conformance/dataset.js';
import type { TableSchema } from '../../../src/query/plan.js';
import { Fixture } from './fixture.js';

export const SETTINGS: QuerySettings = CONFORMANCE_SETTINGS;

export function parseContext(fixture: { schema(c: string): TableSchema | null }, className: string, settings: QuerySettings = SETTINGS): ParseContext {
  return { className, schema: (c) => fixture.schema(c), settings };
}

/** The conformance data set in a fixture. */
export function conformanceFixture(): Fixture {
  return new Fixture(
    CONFORMANCE_TABLES.map((t) => ({
      schema: { className: t.className, columns: t.columns, indexes: [] },
      records: t.records,
      ...(t.relations ? { relations: t.relations } : {}),
    })),
  );
}

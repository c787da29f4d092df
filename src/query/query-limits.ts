/**
 * Plan limits of list queries and batches: the `query` slice of the application settings
 * (`AppSettings.query`). Defined here so the parser reads them without importing the app layer.
 */
export interface QueryLimits {
  /** Page size when `limit` is absent (100). */
  defaultLimit: number;
  /** Larger `limit` values are clamped to this (1000). */
  maxLimit: number;
  /** Inner query ($inQuery/$select) default and maximum. */
  innerQueryDefaultLimit: number;
  innerQueryMaxLimit: number;
  /** Most operations in one batch (50). */
  batchMax: number;
  /** Largest accepted `where` JSON in bytes (402 above). */
  maxWhereBytes: number;
  /** Longest one storage read of a request may run, in ms (5000); past it: 11090. */
  budgetMs: number;
  /**
   * Most bytes `include` may add to one reply (16 MiB): the JSON of each included record (a byte per
   * character, string escapes not counted), counted once per place it appears (a record named by
   * 700 Pointers counts 700 times); past it the read answers 11092 and nothing is built.
   */
  maxIncludeBytes: number;
}


/** The default limits: the `query` slice of `DEFAULT_SETTINGS`. */
export const DEFAULT_QUERY_LIMITS: Readonly<QueryLimits> = {
  defaultLimit: 100,
  maxLimit: 1000,
  innerQueryDefaultLimit: 100,
  innerQueryMaxLimit: 1000,
  batchMax: 50,
  maxWhereBytes: 64 * 1024,
  budgetMs: 5000,
  maxIncludeBytes: 16 * 1024 * 1024,
};

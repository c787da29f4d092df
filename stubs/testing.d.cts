// svcbase/testing is ESM-only (it needs vitest, which loads only as an ES module): see stubs/testing.cjs.
export {};

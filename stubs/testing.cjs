'use strict';
// `svcbase/testing` from require(): its conformance kit registers vitest tests, and vitest loads only
// as an ES module. Fail here with the way out instead of vitest's own error.
throw new Error(
  "[svcbase] svcbase/testing runs under vitest, which is ESM-only: import it from an ES module " +
    "(import { runStorageConformance } from 'svcbase/testing' in a .mjs/.mts test or a \"type\": \"module\" package). " +
    "Under require(), take the fakes from 'svcbase' (FakeClock, seededRandom, memorySmsTransport, memoryMailTransport, " +
    "memoryCounterStore) and 'svcbase/memory' (memoryKvStore).",
);

// Interim stub while src/query/evaluate does not exist yet (used only by vitest.stub.config.ts).
export function runFind(): never { throw new Error('query evaluator not available yet'); }
export function runCount(): never { throw new Error('query evaluator not available yet'); }
export function runAggregate(): never { throw new Error('query evaluator not available yet'); }

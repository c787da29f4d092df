// Interim stub while src/query/sql/index does not exist yet (used only by vitest.stub.config.ts).
export const sqliteDialect = { name: 'sqlite', quoteIdent: (n: string) => `"${n}"` };
export function compileFind(): never { throw new Error('SQL compiler not available yet'); }
export function compileCount(): never { throw new Error('SQL compiler not available yet'); }
export function compileAggregate(): never { throw new Error('SQL compiler not available yet'); }

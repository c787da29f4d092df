import { compilePredicate } from '../../../src/query/evaluate/index.js';
const N = 100_000;
const records: any[] = [];
for (let i = 0; i < N; i++) records.push({ objectId: 'id' + i, createdAt: { __type: 'Date', iso: 'x' }, updatedAt: { __type: 'Date', iso: 'x' }, name: 'user' + i, score: i % 1000, tags: ['a'], profile: { city: 'P' }, active: i % 3 === 0 });
const env: any = { className: 'B', records: () => records, relationMembers: () => new Set(), schema: () => null };
const pred = compilePredicate({ kind: 'compare', field: { column: 'name', path: [] }, op: 'eq', value: 'user4242' }, { env, className: 'B', schema: null });
for (let k = 0; k < 5; k++) { const t = performance.now(); let n = 0; for (const r of records) if (pred(r)) n++; console.log('loop', (performance.now() - t).toFixed(2), n); }
const col = 'name'; const value = 'user4242';
for (let k = 0; k < 3; k++) { const t = performance.now(); let n = 0; for (const r of records) if (r[col] === value) n++; console.log('raw', (performance.now() - t).toFixed(2), n); }

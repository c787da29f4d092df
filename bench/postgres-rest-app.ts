/**
 * The PostgreSQL REST rows' workloads (issue 37), shared by their server (bench/postgres-rest-server.ts)
 * and the in-process profiling aid (bench/profile-handler.ts).
 */
import { CLASS_NAME, categoryCount, SCORE_MAX } from './data.js';
import type { HttpWorkload } from './rest-app.js';

export const PG_URL = process.env.SVCBASE_BENCH_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/test';

const CREATE_BODY = JSON.stringify({ name: 'new user', category: 'c1', score: 4242, level: 3, active: true, tags: ['t1', 't2'], address: { city: 'city1', zip: '10001' } });
const INCREMENT_BODY = JSON.stringify({ level: { __op: 'Increment', amount: 1 } });

/** The five REST rows of issue 37 over a table of `size` records whose ids are `ids`. */
export function pgRestWorkloads(ids: readonly string[], size: number): HttpWorkload[] {
  const listPaths = Array.from({ length: 100 }, (_, i) => {
    const where = encodeURIComponent(JSON.stringify({ score: { $gte: Math.floor((i * SCORE_MAX) / 100) } }));
    return `/1/classes/${CLASS_NAME}?where=${where}&order=score&limit=20`;
  });
  const categories = categoryCount(size);
  const countPaths = Array.from({ length: Math.min(100, categories) }, (_, i) => `/1/classes/${CLASS_NAME}?where=${encodeURIComponent(JSON.stringify({ category: `c${i}` }))}&count=1&limit=0`);
  const byId = ids.map((id) => `/1/classes/${CLASS_NAME}/${id}`);
  return [
    { name: 'GET /1/classes/Bench/:id', method: 'GET', paths: byId, status: 200 },
    { name: 'GET /1/classes/Bench?where={score>=x}&order=score&limit=20', method: 'GET', paths: listPaths, status: 200 },
    { name: 'POST /1/classes/Bench (create)', method: 'POST', paths: [`/1/classes/${CLASS_NAME}`], body: CREATE_BODY, status: 201 },
    { name: 'PUT /1/classes/Bench/:id (Increment)', method: 'PUT', paths: byId, body: INCREMENT_BODY, status: 200 },
    { name: 'GET /1/classes/Bench?where={category=c}&count=1&limit=0 (count)', method: 'GET', paths: countPaths, status: 200 },
  ];
}


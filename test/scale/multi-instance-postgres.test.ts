import { defineMultiInstanceProof } from './proof.js';

// The multi-instance proof on one PostgreSQL database (a fresh schema; SVC_DATABASE_URL or the test
// database) and one Redis.
await defineMultiInstanceProof('postgres');

import { PG_URL } from '../postgres/pg-test-db.js';
import { defineMultiInstanceProof } from './proof.js';

// The multi-instance proof on one PostgreSQL database (a fresh schema) and one Redis.
process.env.SVC_DATABASE_URL ??= PG_URL;
await defineMultiInstanceProof('postgres');

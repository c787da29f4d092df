import { defineMultiInstanceProof } from './proof.js';

// The multi-instance proof on one shared SQLite file (WAL) and one Redis, with the control run.
await defineMultiInstanceProof('sqlite', { control: true });

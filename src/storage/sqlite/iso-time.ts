/**
 * `isoOfMs`: `new Date(ms).toISOString()` by arithmetic (moved to src/core/time.ts, where the wire
 * encoder shares it).
 */
export { isoOfMs } from '../../core/time.js';

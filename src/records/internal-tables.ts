import { CLASS_PERMISSIONS_TABLE } from './class-permission-store.js';

/** The system table of deployed function sources (the functions feature's; master key only over `/1/classes`). */
export const CLOUD_CODE_TABLE = '_CloudCode';

/**
 * svcbase's own bookkeeping tables: the schema API does not list them (so neither the console nor
 * `svcbase export` sees them) and refuses to create, change or drop them (10073, as for the other system
 * tables). Their features read and write them through storage.
 */
export const INTERNAL_TABLES: ReadonlySet<string> = new Set([CLASS_PERMISSIONS_TABLE, CLOUD_CODE_TABLE]);

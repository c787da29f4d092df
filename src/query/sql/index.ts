/**
 * The SQL side of the query engine: plans compile to one parameterised statement per dialect.
 * Dialects differ only in small hooks (src/query/sql/dialect.ts); the compilers are shared. Writes
 * (INSERT, UPDATE, DELETE, Relation rows), DDL and the schema bookkeeping compile the same way.
 */
export type { SqlDialect, SqlQueryDialect, SqlSchemaDialect, JsonNode, JsonKind } from './dialect.js';
export type { CompiledQuery, Sql } from './fragment.js';
export type { SqlSchemaView } from './scope.js';
export type { CompiledAggregate } from './aggregate-compiler.js';
export { sqliteAdapterDialect, sqliteDialect } from './sqlite-dialect.js';
export { postgresDialect } from './postgres-dialect.js';
export { compileFind, compileFindTopFirst, compileCount, compileCountByAclBranch, compileCountUpTo, compileMatchBeyond, physicalColumnNames, splitAclRead } from './find-compiler.js';
export { compileAggregate } from './aggregate-compiler.js';
export { registerSqliteFunctions, type SqliteFunctionHost } from './sqlite-functions.js';
export { compileInsert, compileUpdate, compileSelectById, compileDeleteById, compileAddRelation, compileRemoveRelation, compileClearRelation, type Assignment } from './write-compiler.js';
export { compileCreateTable, compileAddColumn, compileCreateJoinTable, compileCreateIndex, compileDropTable, compileDropColumn, compileDropIndex, indexName } from './ddl-compiler.js';
export { planDropColumn, planDropIndex, planDropTable, type SchemaDrop } from './schema-drops.js';
export * as bookkeepingSql from './bookkeeping-sql.js';
export { physicalIdent } from './identifier.js';
export type { StorageKind } from './layout.js';

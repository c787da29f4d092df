/**
 * The query engine (`svcbase/query`): the wire query parsed once into a validated plan, the
 * in-memory evaluator that defines its semantics and SQL compilers per dialect. Engines only: no
 * storage, HTTP or application imports (the list service that runs a plan is in src/records).
 * See docs/querying.md.
 */
export * from './plan.js';
export { DEFAULT_QUERY_LIMITS, type QueryLimits } from './query-limits.js';
export { parseListQuery, parseWhere, parseWhereParam, parseInclude, referencedClasses, type ListQuery, type ParseContext, type QuerySettings, type IncludePath, type IncludeStep } from './parse.js';
export { runFind, runCount, runAggregate, compilePredicate, applyProjection, type EvalEnv } from './evaluate/index.js';
export { compileFind, compileCount, compileAggregate, registerSqliteFunctions, sqliteDialect, postgresDialect, physicalColumnNames, type SqlDialect, type SqlQueryDialect, type SqlSchemaDialect, type SqlSchemaView, type CompiledQuery, type CompiledAggregate } from './sql/index.js';
export { compileSafeRegex, MAX_PATTERN_LENGTH, type SafeRegex } from './regex/safe-regex.js';
export { geoDistanceRadians, EARTH_RADIUS_KM, EARTH_RADIUS_MILES, DEFAULT_NEAR_RADIANS } from './geo.js';
export { compareStrings } from './compare.js';

/**
 * The query engine (`svcbase/query`): the wire query parsed once into a validated plan, the
 * in-memory evaluator that defines its semantics, SQL compilers per dialect, and the list route.
 * See docs/querying.md.
 */
export * from './plan.js';
export { parseListQuery, parseWhere, parseWhereParam, parseInclude, referencedClasses, type ListQuery, type ParseContext, type QuerySettings, type IncludePath, type IncludeStep } from './parse.js';
export { runFind, runCount, runAggregate, compilePredicate, applyProjection, type EvalEnv } from './evaluate/index.js';
export { compileFind, compileCount, compileAggregate, registerSqliteFunctions, sqliteDialect, postgresDialect, physicalColumnNames, type SqlDialect, type SqlSchemaView, type CompiledQuery, type CompiledAggregate } from './sql/index.js';
export { handleList, expandRecordIncludes, type ListDeps } from './list-handler.js';
export { expandIncludes, type IncludeDeps } from './include.js';
export { compileSafeRegex, MAX_PATTERN_LENGTH, type SafeRegex } from './regex/safe-regex.js';
export { geoDistanceRadians, EARTH_RADIUS_KM, EARTH_RADIUS_MILES, DEFAULT_NEAR_RADIANS } from './geo.js';
export { compareStrings } from './compare.js';

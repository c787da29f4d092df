/** Cloud functions: host-defined functions over REST and plain HTTP, with their runtime rules. */
export type { FunctionRedisClient, FunctionRedisOptions, RedisModule } from './redis-module.js';
export type { HttpCallback, HttpModule, HttpModuleOptions, HttpRequestOptions, HttpResult } from './http-module.js';
export type { CloudFunction, DataModule, FunctionModules, FunctionRequest, FunctionResponse, FunctionsModule, ModuleCallback, ModuleMethod } from './contract.js';
export { type FunctionsApi, type FunctionsOptions, functionsFeature } from './functions-feature.js';
export { DEFAULT_FUNCTION_LIMITS, type FunctionLimits, FunctionRunner, type FunctionTimer } from './function-runner.js';

/** Cloud functions: host-defined functions over REST and plain HTTP, with their runtime rules. */
export type { FunctionRedisClient, FunctionRedisOptions, RedisModule } from './redis-module.js';
export type { HttpCallback, HttpModule, HttpModuleOptions, HttpRequestOptions, HttpResult } from './http-module.js';
export type { CloudFunction, CryptoJsModule, DataModule, FunctionModules, FunctionRequest, FunctionResponse, FunctionsModule, HtmlNode, HtmlparserModule, ModuleCallback, ModuleMethod, MomentModule, MomentValue } from './contract.js';
export { NodeRSA } from './rsa-module.js';
export { type FunctionsApi, type FunctionsOptions, functionsFeature } from './functions-feature.js';
export { DEFAULT_FUNCTION_LIMITS, type FunctionLimits, FunctionRunner, type FunctionTimer } from './function-runner.js';
export type { DeployedFunctionSource, FunctionRuntime, RuntimeInvocation } from './runtime.js';
export type { SandboxLimits } from './sandbox/quickjs-sandbox.js';
export { type FunctionWechatAccount, type WechatForFunctions } from './java/java-wechat.js';

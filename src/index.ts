/**
 * svcbase: an embeddable application backend. Create a service with `createService`, mount it with
 * `svcbase/node`, `svcbase/fetch` or `svcbase/fastify`, and pick storage from `svcbase/memory` or
 * `svcbase/sqlite`.
 */
export { createService } from './service.js';
export type { FeatureFactory, Service, ServiceOptions, ServiceRegistry } from './service.js';
export type { ConsoleOptions } from './console/console-feature.js';
export type {
  AppSettings,
  Application,
  ApplicationConfig,
  DeepPartial,
  FeatureSwitches,
  QueryLimits,
  SchemaSettings,
  SmsLimits,
  SmsSettings,
  SmsTemplate,
} from './app/application.js';
export { DEFAULT_SETTINGS, DEFAULT_CODE_TEMPLATE } from './app/application.js';
export { SvcError, svcError, isSvcError } from './core/errors.js';
export { ERROR_CODES } from './core/error-codes.js';
export type { ErrorName } from './core/error-codes.js';
export { FakeClock, systemClock } from './core/clock.js';
export type { Clock } from './core/clock.js';
export { cryptoRandom, seededRandom } from './core/random.js';
export type { Random } from './core/random.js';
export { lineLogger, silentLogger } from './core/logger.js';
export { type PinoLike, pinoLogger } from './core/pino-logger.js';
export type { Logger } from './core/logger.js';
export type {
  ColumnType,
  DateValue,
  FileValue,
  GeoPointValue,
  ObjectValue,
  PointerValue,
  StoredRecord,
  TypedValue,
  Value,
} from './core/values.js';
export type { Json } from './core/wire-values.js';
export type { Awaitable, FieldOp, ReadOptions, SchemaLimits, StorageAdapter, StorageCapabilities, TableRef, UpdateImages } from './storage/port.js';
export type { WriteEvent, WriteObserver, WriteOpKind } from './events/write-event.js';
export type { KvStore } from './kv/port.js';
export type * from './query/plan.js';
export type {
  AuthContext,
  Feature,
  RouteContext,
  RouteDef,
  RouteResult,
  ServiceContext,
  SessionResolver,
  SessionUser,
  SvcRequest,
  SvcResponse,
  RouteBody,
  UpgradeContext,
  UpgradeDef,
} from './http/types.js';
export type { AcceptOptions, FeatureSocket } from './features/sockets.js';
export type { UpgradeHandler, UpgradeOptions } from './http/upgrade.js';
export { requestSignature } from './http/signature.js';

// Features and their ports: SMS, captcha, mail, users, records, counters.
export type { CounterStore, RateWindow, ConsumeResult } from './counters/port.js';
export { memoryCounterStore } from './counters/memory-counter-store.js';
export {
  consoleSmsTransport,
  e164PhoneValidator,
  mainlandPhoneValidator,
  memorySmsTransport,
  tencentSmsTransport,
  countedLength,
  messageCount,
} from './sms/index.js';
export type {
  ConsoleSmsOptions,
  DeliveryReport,
  MemorySmsTransport,
  PhoneValidator,
  SmsApi,
  SmsMessage,
  SmsSendResult,
  SmsState,
  SmsTransport,
  TencentSmsOptions,
} from './sms/index.js';
export { consoleMailTransport, memoryMailTransport, smtpMailTransport } from './mail/index.js';
export type { MailMessage, MailTransport, MemoryMailTransport, SmtpMailOptions } from './mail/index.js';
export { createCanvasRenderer } from './captcha/index.js';
export type { CaptchaApi, CaptchaFeatureOptions, CaptchaRenderer } from './captcha/index.js';
export type { ClassPolicy, ClassPolicyContext, RecordsFeature } from './records/index.js';
export { MASTER_ONLY_TABLE, ORDINARY_TABLE, tableRule, type TableRule } from './access/table-rules.js';
export type { TableAccess } from './access/table-access.js';
export type { ClassOperation, ReadOperation } from './access/class-permissions.js';
export type { UsersFeature, UsersFeatureOptions, ScryptParams, HashingLimits } from './users/index.js';
export type { BusListener, BusState, EventBus } from './events/port.js';
export { memoryEventBus, memoryEventHub, type MemoryEventHub } from './events/memory-event-bus.js';
export { writeFeed, encodeFeedEvent, decodeFeedEvent, type FeedEvent, type WriteFeed, type WriteFeedOptions } from './events/write-feed.js';
export { createFilesFeature, localFileStore, s3FileStore, ffmpegMediaProcessor, DEFAULT_FILE_LIMITS } from './files/index.js';
export type {
  FilesOptions,
  FileLimits,
  FileStore,
  FileMeta,
  StoredFileInfo,
  ByteRange,
  FileReadStream,
  FileRef,
  FilesApi,
  FileContent,
  MediaProcessor,
  FfmpegOptions,
  ImageChecker,
  ImageVerdict,
  LocalFileStoreOptions,
  S3FileStoreOptions,
  FilesFeature,
} from './files/index.js';
export { createRealtimeFeature } from './realtime/index.js';
export type { QueryEvent, RealtimeCaller, RealtimeOptions, RealtimeTicker, TableAction } from './realtime/index.js';
export { DEFAULT_FUNCTION_LIMITS, FunctionRunner, functionsFeature } from './functions/index.js';
export type {
  CloudFunction,
  DataModule,
  FunctionLimits,
  FunctionModules,
  FunctionRequest,
  FunctionResponse,
  FunctionTimer,
  FunctionRuntime,
  DeployedFunctionSource,
  RuntimeInvocation,
  SandboxLimits,
  FunctionsApi,
  FunctionsModule,
  FunctionsOptions,
  ModuleCallback,
  ModuleMethod,
} from './functions/index.js';
export { AI, DEFAULT_AI_SETTINGS, aiFeature, openAiCompatibleProvider } from './ai/index.js';
export type { AiApi, AiOptions, AiSettings, ChatChunk, ChatCompletionRequest, ChatMessage, ChatProvider, ChatRole, ChatUsage, OpenAiCompatibleOptions } from './ai/index.js';
export { PUSH, fcmTransport, pushFeature, webPushTransport } from './push/index.js';
export { WECHAT, callbackSignature, createAccessTokens, nodePayTransport, payV2Sign, wechatFeature, wechatPlatformClient } from './wechat/index.js';
export type { AccessTokens, PayService, PaySettings, PayV2Transport, PlatformAccount, PlatformClient, PlatformSession, QrInterface, QrRequest, WechatApi, WechatOptions, WechatService, WechatSettings } from './wechat/index.js';
export { AuthProviderRegistry, type AuthProvider, type VerifiedIdentity } from './users/auth-providers.js';
export type { FcmOptions, FcmServiceAccount, PushOptions, PushOutcome, PushService, PushSettings, PushTarget, PushTransport, WebPushOptions, WebPushSubscription } from './push/index.js';
export { internalCaller, sessionCaller } from './app/caller.js';
export type { Caller, CredentialKind } from './app/caller.js';
export type { JsonObject } from './core/wire-values.js';
export type { CreateResult, RecordListOptions, RecordReadOptions, RecordWrites, RecordsService } from './records/index.js';
export type { UsersService, SignUpResult } from './users/index.js';
export type { CaptchaService } from './captcha/index.js';
// Open composition and host write hooks (issue 13): docs/features.md
export { defineFeature, featureKey } from './features/contract.js';
export type { FeatureContext, FeatureDefinition, FeatureInstance, FeatureKey, FeatureSettings } from './features/contract.js';
export { CAPTCHA, RECORDS, SESSIONS, SMS, USERS } from './service.js';
export type {
  AfterDeleteHook,
  AfterSaveContext,
  AfterSaveHook,
  BeforeDeleteHook,
  BeforeSaveContext,
  BeforeSaveHook,
  DeleteContext,
  WriteHookRegistry,
  WriteHooksConfig,
} from './events/write-hook-types.js';

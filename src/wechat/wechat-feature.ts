import { FILES } from '../files/index.js';
import type { Application } from '../app/application.js';
import { svcError } from '../core/errors.js';
import type { FunctionWechatAccount, WechatForFunctions, FunctionsApi } from '../functions/index.js';
import { type FeatureDefinition, featureKey } from '../features/contract.js';
import { MASTER_ONLY_TABLE } from '../access/table-rules.js';
import type { RecordsFeature } from '../records/index.js';
import type { UsersFeature } from '../users/index.js';
import { createAccessTokens } from './access-tokens.js';
import { MEDIA_CHECK_CLASS, createMediaCheckStore } from './media-checks.js';
import { ORDER_CLASS, createOrderStore } from './pay/orders.js';
import { type PayV2Transport, nodePayTransport } from './pay/pay-v2-client.js';
import { type PayService, createPayService } from './pay/pay-service.js';
import { VIRTUAL_ORDER_CLASS, type VirtualPayService, createVirtualPay } from './pay/virtual-pay.js';
import { type PlatformClient, wechatPlatformClient } from './platform-client.js';
import { createSessionKeyLedger } from './session-keys.js';
import { weappAuthProvider } from './weapp-provider.js';
import { wechatRoutes } from './wechat-routes.js';
import { type WechatService, createWechatService } from './wechat-service.js';
import { DEFAULT_API_BASE, DEFAULT_WECHAT_SETTINGS, type PlatformAccount, type WechatSettings, resolveWechatSettings } from './wechat-settings.js';

/** `createService({ wechat })`: how the service reaches the platform (defaults: the real HTTP APIs). */
export interface WechatOptions {
  /** The platform client (default: `wechatPlatformClient` over fetch, tokens cached in the KvStore). */
  readonly platform?: PlatformClient;
  /** How Pay v2 XML is posted (default: node's https client, with the merchant certificate on refunds). */
  readonly payTransport?: PayV2Transport;
  /** fetch for the default platform client (tests may count calls). */
  readonly fetch?: typeof fetch;
}

/** What the wechat feature publishes. */
export interface WechatApi {
  readonly service: WechatService;
  readonly pay: PayService;
  readonly virtualPay: VirtualPayService;
  /** What Java functions' `oWechat` uses (src/functions/java/java-wechat.ts). */
  readonly forFunctions: WechatForFunctions;
}

export const WECHAT = featureKey<WechatApi>('wechat');
const RECORDS = featureKey<RecordsFeature>('records');
const USERS = featureKey<UsersFeature>('users');
const FUNCTIONS = featureKey<FunctionsApi>('functions');

/**
 * The mini-program platform: login by openid (`wechatAppv1`, `authData.weapp` verified for the users
 * feature), session keys, decryption, phone numbers, the access token, content checks, messages,
 * mini-program codes, and WeChat Pay v2. Per-application settings in `featureSettings.wechat`.
 * docs/wechat.md.
 */
export function wechatFeature(options: WechatOptions = {}): FeatureDefinition<WechatApi, WechatSettings> {
  return {
    id: WECHAT.id,
    requires: [RECORDS.id],
    after: [USERS.id, FUNCTIONS.id, FILES.id],
    settings: { defaults: DEFAULT_WECHAT_SETTINGS, resolve: resolveWechatSettings },
    init(ctx) {
      const records = ctx.use(RECORDS);
      for (const table of [MEDIA_CHECK_CLASS, ORDER_CLASS, VIRTUAL_ORDER_CLASS]) records.declareTable(table, MASTER_ONLY_TABLE);
      const settings = (app: Parameters<typeof ctx.settings>[0]) => ctx.settings(app);
      const platform = options.platform ?? wechatPlatformClient({ tokens: createAccessTokens({ kv: ctx.kv, clock: ctx.clock, ...(options.fetch ? { fetch: options.fetch } : {}) }), ...(options.fetch ? { fetch: options.fetch } : {}) });
      const sessionKeys = createSessionKeyLedger(ctx);
      const virtualPay = createVirtualPay({ settings, platform, sessionKeys, storage: ctx.storage, clock: ctx.clock, random: ctx.random });
      const service = createWechatService({
        settings,
        platform,
        sessionKeys,
        mediaChecks: createMediaCheckStore(ctx),
        kv: ctx.kv,
        clock: ctx.clock,
        logger: ctx.logger,
        functions: () => ctx.find(FUNCTIONS)?.runner,
        virtualPaid: (app, event) => virtualPay.paid(app, event),
      });
      const pay = createPayService({
        settings,
        orders: createOrderStore(ctx),
        accessOf: (caller) => records.access.accessOf(caller),
        transport: options.payTransport ?? nodePayTransport,
        kv: ctx.kv,
        clock: ctx.clock,
        random: ctx.random,
        logger: ctx.logger,
        ...(options.fetch ? { fetch: options.fetch } : {}),
      });
      ctx.find(USERS)?.authProviders.register('weapp', weappAuthProvider({ settings, platform, sessionKeys }));
      ctx.find(FILES)?.connectPlatform({ checkImage: (app, image, name) => service.checkImage(app, image, name), qrCode: (app, iface, request) => service.qrCode(app, iface, request) });
      // A function may name another mini program (initWechatApp): it keeps the configured base and timeout.
      const accountFor = (app: Application, given: FunctionWechatAccount | undefined): PlatformAccount => {
        const configured = settings(app).miniProgram;
        if (!given) {
          if (!configured) throw svcError('platformNotConfigured', 'miniProgram');
          return configured;
        }
        return { appId: given.appId, secret: given.secret, apiBase: configured?.apiBase ?? DEFAULT_API_BASE, timeoutMs: configured?.timeoutMs ?? 5000 };
      };
      const forFunctions: WechatForFunctions = {
        accessToken: (app, account) => platform.accessToken(accountFor(app, account)),
        sendCustomerMessage: (app, message, { account, token }) => platform.sendCustomerMessage(accountFor(app, account), message, token),
      };
      return { api: { service, pay, virtualPay, forFunctions }, routes: wechatRoutes(service, pay, virtualPay, ctx.applications) };
    },
  };
}

export { WECHAT, wechatFeature, type WechatApi, type WechatOptions } from './wechat-feature.js';
export type { PaySettings, PlatformAccount, WechatSettings } from './wechat-settings.js';
export { wechatPlatformClient, type PlatformClient, type PlatformSession, type QrInterface, type QrRequest } from './platform-client.js';
export { createAccessTokens, type AccessTokens } from './access-tokens.js';
export type { WechatService } from './wechat-service.js';
export type { PayService } from './pay/pay-service.js';
export { nodePayTransport, type PayV2Transport } from './pay/pay-v2-client.js';
export { payV2Sign } from './pay/pay-v2-xml.js';
export { callbackSignature } from './callback-signature.js';

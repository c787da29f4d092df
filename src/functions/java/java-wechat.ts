import type { Application } from '../../app/application.js';
import { featureKey } from '../../features/contract.js';
import type { JsonObject } from '../../core/wire-values.js';

/** A mini program's credentials a Java function names itself (`oWechat.initWechatApp(appId, appSecret)`). */
export interface FunctionWechatAccount {
  readonly appId: string;
  readonly secret: string;
}

/**
 * What Java functions' `oWechat` needs of the mini-program platform feature, which implements it
 * (src/wechat/wechat-feature.ts, `forFunctions`): an access token, and customer-service messages.
 * Defined here so functions do not depend on the platform feature; without it `oWechat` answers 11205.
 */
export interface WechatForFunctions {
  /** The access token of the application's mini program, or of `account` (the platform's cache, shared by instances). */
  accessToken(app: Application, account?: FunctionWechatAccount): Promise<string>;
  /** Sends `/cgi-bin/message/custom/send`; `token` (a function's `setAccessToken`) is used as given. */
  sendCustomerMessage(app: Application, message: JsonObject, options: { readonly account?: FunctionWechatAccount; readonly token?: string }): Promise<void>;
}

/** The platform feature's API as functions look it up (its id is `wechat`). */
export const WECHAT_FOR_FUNCTIONS = featureKey<{ readonly forFunctions: WechatForFunctions }>('wechat');

import { svcError } from '../core/errors.js';
import { type FeatureDefinition, featureKey } from '../features/contract.js';
import type { UpgradeDef } from '../features/routes.js';
import type { FeatureSocket } from '../features/sockets.js';
import { type AiSettings, DEFAULT_AI_SETTINGS, resolveAiSettings } from './ai-settings.js';
import { ChatContextStore } from './chat-context.js';
import { serveChatConnection } from './chat-connection.js';
import { ChatLimits } from './chat-limits.js';
import type { ChatProvider } from './chat-provider.js';

/** `createService({ ai })`: the model provider and the service-wide defaults of AI chat. */
export interface AiOptions {
  /** Where completions come from (`openAiCompatibleProvider({ baseUrl, apiKey })` or yours). Without it the route answers 11190. */
  readonly provider?: ChatProvider;
  /** The model of applications that name none in `featureSettings.ai.model`. */
  readonly model?: string;
  /** Bytes a client may leave unread before it is cut (default 1 MiB). */
  readonly maxBufferedBytes?: number;
}

export interface AiApi {
  /** Connections open now. */
  readonly connections: () => number;
}

export const AI = featureKey<AiApi>('ai');

/** Largest frame any application may allow; each application's own `maxMessageBytes` is checked per frame. */
const MAX_PAYLOAD = 1024 * 1024;

/**
 * AI chat over WebSocket at `<mount>/1/ai/<secretKey>`, as the hosted service and its SDK's
 * `Bmob.ChatAI()` speak it (sdk-wire.md §8): the secret key in the path names the application
 * (browsers send no headers). Per-application settings in `featureSettings.ai` (docs/ai-chat.md).
 */
export function aiFeature(options: AiOptions = {}): FeatureDefinition<AiApi, AiSettings> {
  return {
    id: AI.id,
    settings: { defaults: DEFAULT_AI_SETTINGS, resolve: resolveAiSettings },
    init(ctx) {
      const contexts = new ChatContextStore(ctx.kv, ctx.clock);
      const limits = new ChatLimits(ctx.counters, ctx.kv, ctx.clock);
      const open = new Set<FeatureSocket>();
      let closing = false;
      const upgrades: UpgradeDef[] = [
        {
          path: '/1/ai/:secretKey',
          auth: 'secret-path',
          handler: async (upgrade) => {
            const app = upgrade.app!;
            const settings = ctx.settings(app);
            const provider = options.provider;
            if (!provider) throw svcError('aiNotConfigured', 'no provider: set ai.provider, or SVC_AI_BASE_URL in the quick start');
            if (!settings.enabled) throw svcError('aiNotConfigured', 'off for this application');
            const socket = await upgrade.accept({ maxPayload: MAX_PAYLOAD });
            if (!socket) return;
            if (closing) return socket.close(1001, 'server closing');
            open.add(socket);
            socket.onClose(() => open.delete(socket));
            serveChatConnection(socket, {
              appId: app.applicationId,
              settings,
              defaultModel: options.model ?? null,
              provider,
              contexts,
              limits,
              logger: ctx.logger,
              maxBufferedBytes: options.maxBufferedBytes ?? 1024 * 1024,
            });
          },
        },
      ];
      return {
        api: { connections: () => open.size },
        routes: [],
        upgrades,
        close() {
          closing = true;
          for (const socket of open) socket.close(1001, 'server closing');
        },
      };
    },
  };
}

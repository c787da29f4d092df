/** One application's AI chat settings: `applications[].featureSettings.ai`, merged over these defaults. */
export interface AiSettings {
  /** Serve `/1/ai/<secretKey>` for this application (default true; false answers 11190). */
  readonly enabled: boolean;
  /** The model used when the client names none (default: the service's `ai.model`). */
  readonly model: string | null;
  /** Models a client may pick with `"model"`; any other is refused with 11196 (default none). */
  readonly models: readonly string[];
  /** Sent first in every conversation (default none). */
  readonly systemPrompt: string | null;
  /** Whether a client's own `system` messages (the SDK's `setPrompt`) are passed on (default true). */
  readonly clientSystemPrompt: boolean;
  /** Conversation context kept per `session`: at most this many messages (default 20) ... */
  readonly maxContextMessages: number;
  /** ... and this many bytes of message text (default 32 KiB); the oldest go first. */
  readonly maxContextBytes: number;
  /** A session's context expires this long after its last message (default 1 day). */
  readonly contextTtlSeconds: number;
  /** Largest client frame in bytes (default 16 KiB). */
  readonly maxMessageBytes: number;
  /** Streams running at once for the application on this instance (default 10; 11193 beyond). */
  readonly maxConcurrentStreams: number;
  /** Messages per minute for the application, across instances (default 60; 11194 beyond). */
  readonly messagesPerMinute: number;
  /** Tokens per UTC day for the application, across instances (default 200 000; 11195 once used up; 0: no limit). */
  readonly tokensPerDay: number;
  /** The completion's length bound (`max_tokens`, default 1024). */
  readonly maxOutputTokens: number;
}

export const DEFAULT_AI_SETTINGS: AiSettings = Object.freeze({
  enabled: true,
  model: null,
  models: Object.freeze([]),
  systemPrompt: null,
  clientSystemPrompt: true,
  maxContextMessages: 20,
  maxContextBytes: 32 * 1024,
  contextTtlSeconds: 86_400,
  maxMessageBytes: 16 * 1024,
  maxConcurrentStreams: 10,
  messagesPerMinute: 60,
  tokensPerDay: 200_000,
  maxOutputTokens: 1024,
});

const COUNTS = ['maxContextMessages', 'maxContextBytes', 'contextTtlSeconds', 'maxMessageBytes', 'maxConcurrentStreams', 'messagesPerMinute', 'maxOutputTokens'] as const;

/** Merges an application's slice over the defaults and validates it (an Error fails createService with 11116). */
export function resolveAiSettings(given: unknown, defaults: AiSettings): AiSettings {
  if (given === undefined) return defaults;
  if (typeof given !== 'object' || given === null || Array.isArray(given)) throw new Error('expected an object');
  const slice = given as Record<string, unknown>;
  for (const key of Object.keys(slice)) if (!Object.hasOwn(defaults, key)) throw new Error(`unknown setting '${key}'`);
  const out = { ...defaults, ...slice } as AiSettings;
  if (typeof out.enabled !== 'boolean' || typeof out.clientSystemPrompt !== 'boolean') throw new Error('enabled and clientSystemPrompt are booleans');
  if (out.model !== null && (typeof out.model !== 'string' || out.model === '')) throw new Error('model is a non-empty string or null');
  if (out.systemPrompt !== null && typeof out.systemPrompt !== 'string') throw new Error('systemPrompt is a string or null');
  if (!Array.isArray(out.models) || !out.models.every((m) => typeof m === 'string' && m !== '')) throw new Error('models is a list of model names');
  for (const key of COUNTS) if (!Number.isSafeInteger(out[key]) || out[key] < 1) throw new Error(`${key} must be a positive integer`);
  if (!Number.isSafeInteger(out.tokensPerDay) || out.tokensPerDay < 0) throw new Error('tokensPerDay must be a non-negative integer');
  return Object.freeze({ ...out, models: Object.freeze([...out.models]) });
}

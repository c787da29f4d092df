import { isSvcError, svcError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import type { FeatureSocket } from '../features/sockets.js';
import type { AiSettings } from './ai-settings.js';
import type { ContextBounds, ChatContextStore } from './chat-context.js';
import type { ChatLimits } from './chat-limits.js';
import type { ChatMessage, ChatProvider, ChatUsage } from './chat-provider.js';
import { type ChatTurnRequest, parseChatTurn } from './chat-request.js';

export interface ChatConnectionDeps {
  readonly appId: string;
  readonly settings: AiSettings;
  /** The service-wide default model (`ai.model`), used when the application names none. */
  readonly defaultModel: string | null;
  readonly provider: ChatProvider;
  readonly contexts: ChatContextStore;
  readonly limits: ChatLimits;
  readonly logger: Logger;
  /** A client that lets this many bytes pile up unread is cut (its stream aborted). */
  readonly maxBufferedBytes: number;
}

/** Frames a client may queue behind the running turn before the connection is closed. */
const MAX_QUEUED_TURNS = 4;
const END_FRAME = JSON.stringify({ choices: [{ delta: { content: '' } }] });

const frame = (content: string): string => JSON.stringify({ choices: [{ delta: { content } }] });

/** Tokens of text when the provider reports no usage: about four characters each. */
const estimateTokens = (texts: readonly string[]): number => Math.ceil(texts.reduce((n, t) => n + t.length, 0) / 4);

/** WebSocket close code of a coded error: 4000 + its HTTP status (4400, 4403, 4424, 4429). */
function closeCodeOf(error: unknown): number {
  return isSvcError(error) ? 4000 + error.status : 1011;
}

/** A close reason within the protocol's 123 bytes: `<code> <message>`. */
function closeReasonOf(error: unknown): string {
  const text = isSvcError(error) ? `${error.code} ${error.message}` : 'internal error';
  let reason = text.slice(0, 120);
  while (Buffer.byteLength(reason) > 123) reason = reason.slice(0, -1);
  return reason;
}

/**
 * One AI chat connection (sdk-wire.md §8): each text frame is a turn, run one after another. A turn
 * sends the model the system prompt, the session's stored context and the frame's messages,
 * forwards each non-empty piece of the reply as `{"choices":[{"delta":{"content":…}}]}`, ends with
 * exactly one empty-string frame, and stores the turn in the session's context. There is no error
 * frame in the protocol: a refused or failed turn closes the socket with a coded reason. Closing the
 * socket aborts the running stream upstream.
 */
export function serveChatConnection(ws: FeatureSocket, deps: ChatConnectionDeps): void {
  const { settings, logger } = deps;
  const gone = new AbortController();
  let queue: Promise<void> = Promise.resolve();
  let queued = 0;

  const fail = (error: unknown) => {
    if (gone.signal.aborted) return;
    const log = isSvcError(error) && error.status < 424 ? logger.debug : logger.warn;
    log.call(logger, 'ai: closing a chat connection', { app: deps.appId, reason: closeReasonOf(error) });
    gone.abort();
    ws.close(closeCodeOf(error), closeReasonOf(error));
  };

  ws.onClose(() => gone.abort());
  ws.onError((error) => logger.debug('ai: socket error', { error: String(error) }));
  ws.onMessage((text) => {
    if (gone.signal.aborted) return;
    if (typeof text !== 'string') return fail(svcError('aiBadMessage', 'frames are JSON text'));
    if (Buffer.byteLength(text) > settings.maxMessageBytes) return fail(svcError('aiBadMessage', `a frame is at most ${settings.maxMessageBytes} bytes`));
    if (queued >= MAX_QUEUED_TURNS) return fail(svcError('aiBusy', `${MAX_QUEUED_TURNS} turns queued on one connection`));
    queued++;
    queue = queue.then(async () => {
      try {
        if (!gone.signal.aborted) await runTurn(parseChatTurn(text));
      } catch (error) {
        fail(error);
      } finally {
        queued--;
      }
    });
  });

  const send = (text: string) => {
    if (gone.signal.aborted) return;
    if (ws.bufferedAmount > deps.maxBufferedBytes) return fail(svcError('aiBusy', 'the client is not reading its replies'));
    ws.send(text);
  };

  function modelOf(request: ChatTurnRequest): string {
    const fallback = settings.model ?? deps.defaultModel;
    if (request.model !== null && request.model !== fallback) {
      if (!settings.models.includes(request.model)) throw svcError('aiModelRefused', request.model.slice(0, 64));
      return request.model;
    }
    if (fallback === null) throw svcError('aiNotConfigured', 'no model: set ai.model or the application\'s model');
    return fallback;
  }

  async function runTurn(request: ChatTurnRequest): Promise<void> {
    const model = modelOf(request);
    const release = await deps.limits.admit(deps.appId, settings);
    try {
      const bounds: ContextBounds = { maxMessages: settings.maxContextMessages, maxBytes: settings.maxContextBytes, ttlSeconds: settings.contextTtlSeconds };
      const history = await deps.contexts.load(deps.appId, request.session);
      const system: ChatMessage[] = settings.systemPrompt ? [{ role: 'system', content: settings.systemPrompt }] : [];
      if (settings.clientSystemPrompt) system.push(...request.messages.filter((m) => m.role === 'system'));
      const turn = request.messages.filter((m) => m.role !== 'system');
      const messages = [...system, ...history, ...turn];
      let reply = '';
      let usage: ChatUsage | null = null;
      try {
        for await (const chunk of deps.provider.stream({ model, messages, maxTokens: settings.maxOutputTokens, signal: gone.signal })) {
          if (gone.signal.aborted) break;
          if (chunk.kind === 'usage') usage = chunk.usage;
          else {
            reply += chunk.text;
            send(frame(chunk.text));
          }
        }
      } finally {
        // Tokens are spent whether or not the client stayed to read them; a provider that refused
        // before answering anything (an HTTP error) is not counted.
        const tokens = usage?.totalTokens ?? (reply === '' ? 0 : estimateTokens([...messages.map((m) => m.content), reply]));
        await deps.limits.spend(deps.appId, tokens).catch((error: unknown) => logger.warn('ai: could not count tokens', { error: String(error) }));
      }
      if (gone.signal.aborted) return;
      send(END_FRAME);
      await deps.contexts.append(deps.appId, request.session, history, [...turn, { role: 'assistant', content: reply }], bounds);
    } finally {
      release();
    }
  }
}

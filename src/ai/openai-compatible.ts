import { type EventSourceMessage, createParser } from 'eventsource-parser';
import { configError, svcError } from '../core/errors.js';
import type { ChatChunk, ChatCompletionRequest, ChatProvider, ChatUsage } from './chat-provider.js';

export interface OpenAiCompatibleOptions {
  /** e.g. `https://api.openai.com/v1` or a local server's `http://127.0.0.1:8000/v1`; `/chat/completions` is appended. */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer <apiKey>` when given. */
  readonly apiKey?: string;
  /** Until the response headers arrive, in ms (default 30 000). */
  readonly timeoutMs?: number;
  /** Longest silence between two chunks of a stream, in ms (default 60 000). */
  readonly idleTimeoutMs?: number;
  /** Extra headers (an organisation, a gateway's key). */
  readonly headers?: Readonly<Record<string, string>>;
  /** The fetch to use (default the global one). */
  readonly fetch?: typeof fetch;
}

interface StreamPayload {
  readonly choices?: ReadonlyArray<{ readonly delta?: { readonly content?: unknown } }>;
  readonly usage?: { readonly prompt_tokens?: unknown; readonly completion_tokens?: unknown; readonly total_tokens?: unknown } | null;
  readonly error?: { readonly message?: unknown } | string;
}

const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0);

function usageOf(payload: StreamPayload): ChatUsage | null {
  const usage = payload.usage;
  if (!usage || typeof usage !== 'object') return null;
  const promptTokens = count(usage.prompt_tokens);
  const completionTokens = count(usage.completion_tokens);
  return { promptTokens, completionTokens, totalTokens: count(usage.total_tokens) || promptTokens + completionTokens };
}

function errorText(payload: StreamPayload | null, fallback: string): string {
  const error = payload?.error;
  const message = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : fallback;
  return message.slice(0, 200);
}

/** Reads at most `limit` bytes of an error body (a provider's error page can be large). */
async function readSome(body: ReadableStream<Uint8Array> | null, limit: number): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
}

function parsePayload(text: string): StreamPayload | null {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as StreamPayload) : null;
  } catch {
    return null;
  }
}

/**
 * A provider for any OpenAI-compatible chat completions API (OpenAI, DeepSeek, Qwen/DashScope's
 * compatible mode, vLLM, Ollama, LM Studio, ...): `POST <baseUrl>/chat/completions` with
 * `stream: true`, read as server-sent events with eventsource-parser (chunk boundaries fall anywhere,
 * even inside a line). Forwards only non-empty `delta.content` (a stream opens with an empty
 * assistant delta, which the SDK would take for the end), reports `usage` when the provider sends it
 * (`stream_options.include_usage`), and ends at `[DONE]` or at the end of the body. Aborting the
 * request's signal aborts the fetch, so the upstream stops generating.
 */
export function openAiCompatibleProvider(options: OpenAiCompatibleOptions): ChatProvider {
  let endpoint: URL;
  try {
    endpoint = new URL(`${options.baseUrl.replace(/\/+$/, '')}/chat/completions`);
  } catch {
    throw configError('ai', `invalid baseUrl '${options.baseUrl}'`);
  }
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') throw configError('ai', 'baseUrl must be http(s)');
  const fetchImpl = options.fetch ?? fetch;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const idleTimeoutMs = options.idleTimeoutMs ?? 60_000;

  return {
    name: 'openai-compatible',
    async *stream(request: ChatCompletionRequest): AsyncGenerator<ChatChunk> {
      const upstream = new AbortController();
      const abort = () => upstream.abort();
      if (request.signal.aborted) return;
      request.signal.addEventListener('abort', abort, { once: true });
      let timedOut: number | null = null;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const arm = (ms: number) => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut = ms;
          upstream.abort();
        }, ms);
        timer.unref?.();
      };
      const failure = (error: unknown): Error => {
        if (timedOut !== null) return svcError('aiTimeout', timedOut);
        if (error instanceof Error && 'errorName' in error) return error;
        return svcError('aiProviderFailed', error instanceof Error ? error.message.slice(0, 200) : 'connection failed');
      };
      try {
        arm(timeoutMs);
        const body = {
          model: request.model,
          messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
          stream: true,
          stream_options: { include_usage: true },
          ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
        };
        let response: Response;
        try {
          response = await fetchImpl(endpoint, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'text/event-stream',
              ...(options.apiKey ? { authorization: `Bearer ${options.apiKey}` } : {}),
              ...options.headers,
            },
            body: JSON.stringify(body),
            signal: upstream.signal,
          });
        } catch (error) {
          if (request.signal.aborted) return;
          throw failure(error);
        }
        if (!response.ok) {
          const text = await readSome(response.body, 2048).catch(() => '');
          throw svcError('aiProviderFailed', `HTTP ${response.status} ${errorText(parsePayload(text), text || response.statusText)}`);
        }
        if (!response.body) throw svcError('aiProviderFailed', 'empty response body');

        const pending: ChatChunk[] = [];
        let done = false;
        let streamError: Error | null = null;
        const parser = createParser({
          onEvent(event: EventSourceMessage) {
            if (done || streamError) return;
            if (event.data === '[DONE]') {
              done = true;
              return;
            }
            const payload = parsePayload(event.data);
            if (!payload) {
              streamError = svcError('aiProviderFailed', 'unreadable stream event');
              return;
            }
            if (payload.error !== undefined) {
              streamError = svcError('aiProviderFailed', errorText(payload, 'error in stream'));
              return;
            }
            const content = payload.choices?.[0]?.delta?.content;
            if (typeof content === 'string' && content !== '') pending.push({ kind: 'content', text: content });
            const usage = usageOf(payload);
            if (usage) pending.push({ kind: 'usage', usage });
          },
        });
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        try {
          while (!done) {
            arm(idleTimeoutMs);
            let read: Awaited<ReturnType<typeof reader.read>>;
            try {
              read = await reader.read();
            } catch (error) {
              if (request.signal.aborted) return;
              throw failure(error);
            }
            if (read.done) break;
            parser.feed(read.value);
            while (pending.length > 0) yield pending.shift()!;
            if (streamError) throw streamError;
          }
        } finally {
          await reader.cancel().catch(() => {});
        }
      } finally {
        clearTimeout(timer);
        request.signal.removeEventListener('abort', abort);
        upstream.abort();
      }
    },
  };
}

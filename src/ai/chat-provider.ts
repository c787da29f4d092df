/**
 * The port between the AI chat feature and a language model: one streamed completion per call.
 * Adapters: `openAiCompatibleProvider` (any OpenAI-compatible `/chat/completions`), or your own.
 */

export type ChatRole = 'system' | 'user' | 'assistant';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
}

export interface ChatCompletionRequest {
  readonly model: string;
  readonly messages: readonly ChatMessage[];
  /** Upper bound of the completion's length in tokens (the provider's `max_tokens`). */
  readonly maxTokens?: number;
  /** Aborted when the client goes away or the feature gives up: the adapter must stop the upstream request. */
  readonly signal: AbortSignal;
}

/** Tokens the provider reports for one completion. */
export interface ChatUsage {
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly totalTokens: number;
}

/** One piece of a streamed completion: text to forward (never empty), or the provider's usage report. */
export type ChatChunk = { readonly kind: 'content'; readonly text: string } | { readonly kind: 'usage'; readonly usage: ChatUsage };

export interface ChatProvider {
  readonly name: string;
  /**
   * Streams one completion. Throws (or the iterator throws) an SvcError: 11191 when the provider
   * refused or failed, 11197 when it went silent past the adapter's timeout. Stops promptly when
   * `signal` aborts.
   */
  stream(request: ChatCompletionRequest): AsyncIterable<ChatChunk>;
}

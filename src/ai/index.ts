/** AI chat: the WebSocket route of `Bmob.ChatAI()`, a provider port and an OpenAI-compatible adapter. */
export { AI, type AiApi, type AiOptions, aiFeature } from './ai-feature.js';
export { type AiSettings, DEFAULT_AI_SETTINGS } from './ai-settings.js';
export type { ChatChunk, ChatCompletionRequest, ChatMessage, ChatProvider, ChatRole, ChatUsage } from './chat-provider.js';
export { type OpenAiCompatibleOptions, openAiCompatibleProvider } from './openai-compatible.js';

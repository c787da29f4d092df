import { svcError } from '../core/errors.js';
import type { ChatMessage, ChatRole } from './chat-provider.js';

/** A client frame, parsed: `{"messages":[{"role","content"}], "session", "model"?}` (sdk-wire.md §8). */
export interface ChatTurnRequest {
  readonly session: string;
  readonly messages: readonly ChatMessage[];
  readonly model: string | null;
}

const ROLES: ReadonlySet<string> = new Set<ChatRole>(['system', 'user', 'assistant']);
const SESSION = /^[A-Za-z0-9_.:@-]{1,128}$/;
const MAX_MESSAGES = 64;
const KEYS: ReadonlySet<string> = new Set(['messages', 'session', 'model', 'stream']);

/** Parses one text frame; every refusal is an 11192 naming what is wrong. */
export function parseChatTurn(text: string): ChatTurnRequest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw svcError('aiBadMessage', 'the frame is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw svcError('aiBadMessage', 'expected a JSON object');
  const frame = value as Record<string, unknown>;
  for (const key of Object.keys(frame)) if (!KEYS.has(key)) throw svcError('aiBadMessage', `unknown key '${key.slice(0, 32)}'`);
  const { messages, session, model } = frame;
  if (typeof session !== 'string' || !SESSION.test(session)) throw svcError('aiBadMessage', 'session must be 1-128 letters, digits or _.:@-');
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) throw svcError('aiBadMessage', `messages must be a list of 1 to ${MAX_MESSAGES} messages`);
  const parsed = messages.map((message, i): ChatMessage => {
    if (typeof message !== 'object' || message === null || Array.isArray(message)) throw svcError('aiBadMessage', `messages[${i}] must be an object`);
    const { role, content } = message as Record<string, unknown>;
    if (typeof role !== 'string' || !ROLES.has(role)) throw svcError('aiBadMessage', `messages[${i}].role must be system, user or assistant`);
    if (typeof content !== 'string' || content === '') throw svcError('aiBadMessage', `messages[${i}].content must be a non-empty string`);
    return { role: role as ChatRole, content };
  });
  if (!parsed.some((m) => m.role === 'user')) throw svcError('aiBadMessage', 'no user message');
  if (model !== undefined && (typeof model !== 'string' || model === '' || model.length > 128)) throw svcError('aiBadMessage', 'model must be a model name');
  return { session, messages: parsed, model: (model as string | undefined) ?? null };
}

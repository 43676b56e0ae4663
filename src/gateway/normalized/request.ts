/**
 * The normalized request: every inbound protocol (OpenAI chat, Responses, legacy completions, Anthropic messages)
 * decodes into this shape, and every provider encodes its wire request from it. N + M translators, never N × M.
 */
import type { ReasoningEffort } from '../../kernel/reasoning-effort.js';

export type ContentPart =
  /** `cacheControl`: the caller's cache mark (Anthropic `cache_control`, chat messages' `cache_control`). */
  | { type: 'text'; text: string; cacheControl?: Record<string, unknown> }
  /** `url` is an `https:` URL or a `data:<mediaType>;base64,…` URL; `detail` is OpenAI's image detail hint. */
  | { type: 'image'; url: string; detail?: string };

/** `function` calls carry JSON arguments; `custom` (freeform, e.g. Codex `apply_patch`) calls carry raw text. */
export type ToolKind = 'function' | 'custom';

export interface ToolCall {
  id: string;
  kind: ToolKind;
  name: string;
  /** JSON text for `function` calls, the raw input for `custom` calls. */
  arguments: string;
}

export type Message =
  | { role: 'user'; content: ContentPart[] }
  | { role: 'assistant'; content: ContentPart[]; toolCalls: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: ContentPart[]; isError?: boolean }
  /** An instruction given mid-conversation (Anthropic `role: "system"` messages); kept in place where the destination allows. */
  | { role: 'system'; content: ContentPart[] };

export type ToolSpec =
  | { type: 'function'; name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean }
  | { type: 'custom'; name: string; description?: string; format?: unknown }
  /** A tool the provider runs itself (`web_search`); `config` keeps the caller's options. */
  | { type: 'builtin'; name: string; config: Record<string, unknown> };

export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type { ReasoningEffort };

/** The original body of a Responses request, sent as-is (model rewritten) to a destination that speaks Responses. */
export interface NativeResponsesBody {
  protocol: 'openai-responses';
  body: Record<string, unknown>;
}

/**
 * The original body of a Messages request, sent as-is (model rewritten) to an Anthropic-kind destination, with the
 * caller's `anthropic-beta` header (the beta features the body relies on).
 */
export interface NativeMessagesBody {
  protocol: 'anthropic-messages';
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The original body of a chat completions request, sent as-is (model rewritten) to an OpenAI-kind destination. */
export interface NativeChatBody {
  protocol: 'openai-chat';
  body: Record<string, unknown>;
}

export type NativeBody = NativeResponsesBody | NativeMessagesBody | NativeChatBody;

/** Structured output the caller asked for (chat `response_format`, Responses `text.format`). */
export type ResponseFormat =
  { type: 'json_object' } | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

export interface NormalizedRequest {
  /** The model id or alias the caller asked for (`power-ai`); resolved by routing when the upstream call is made. */
  model: string;
  system?: string;
  messages: Message[];
  tools: ToolSpec[];
  toolChoice?: ToolChoice;
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop?: string[];
  reasoningEffort?: ReasoningEffort;
  /** Absent means plain text. */
  responseFormat?: ResponseFormat;
  metadata?: Record<string, string>;
  /** The caller wants a stream; providers ask the upstream for one too. */
  stream: boolean;
  /**
   * Set by the Responses protocol (used only when the destination has `capabilities.responsesApi`) and by the
   * Messages protocol (used only when the destination is Anthropic-kind).
   */
  native?: NativeBody;
  /**
   * Parts of the native body the normalized form cannot carry (an `input_file` part, an unknown item type).
   * The call may go only to a destination that takes the native body; elsewhere it is refused, never trimmed.
   */
  nativeOnly?: string[];
  /** The inbound protocol and the caller's body, whose fields a translation may drop (see field-fates.ts). */
  source?: { protocol: 'chat' | 'responses' | 'messages' | 'completions'; body: Record<string, unknown> };
  /** End-user id (chat/Responses `user` or `safety_identifier`, Anthropic `metadata.user_id`). */
  endUser?: string;
  /** OpenAI-only hints a translation to chat carries (Responses `prompt_cache_key`, `text.verbosity`, …). */
  openaiHints?: {
    promptCacheKey?: string;
    verbosity?: string;
    serviceTier?: string;
    topLogprobs?: number;
    user?: string;
    safetyIdentifier?: string;
  };
  /** Cache mark on the system prompt (chat system message `cache_control`), kept toward Anthropic. */
  systemCache?: Record<string, unknown>;
  /** Chat legacy `functions`: the answer's calls come back as `function_call`. */
  legacyFunctions?: boolean;
}

export function hasImages(request: NormalizedRequest): boolean {
  return request.messages.some((message) => message.content.some((part) => part.type === 'image'));
}

/** Plain text of parts (images dropped); used for token estimates and text-only tool results. */
export function textOf(parts: ContentPart[]): string {
  let text = '';
  for (const part of parts) if (part.type === 'text') text += part.text;
  return text;
}

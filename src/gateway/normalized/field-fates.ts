/**
 * The fate of every request field of every inbound protocol when the call is translated to another protocol: where
 * it lands in the upstream body, that the gateway itself serves it, or that it is dropped — and then named in the
 * `x-switchyard-dropped-fields` response header, never silently. A call that goes to an upstream of its own protocol
 * (chat → OpenAI-kind, Responses → a Responses model, messages → Anthropic-kind) sends the body as given and drops
 * nothing. This table is the one source: execute.ts names the dropped fields from it, docs/gateway.md shows it
 * (a test keeps the two equal) and a test generated from it checks each fate against the scripted upstream.
 */
import type { Destination } from './destination.js';
import type { NormalizedRequest } from './request.js';

/** The protocol a translated call reaches: OpenAI chat completions or Anthropic messages. */
export type TranslatedKind = 'openai-chat' | 'anthropic';
export type InboundName = 'chat' | 'responses' | 'messages' | 'completions';

/**
 * `string`: the upstream field it becomes (a dotted path); `gateway`: served by the gateway itself (streaming,
 * storage, background runs); `null`: dropped and named.
 */
export type Fate = string | 'gateway' | null;

export interface FieldFate {
  /** A top-level field, or `parent.child` for one member of an object field. */
  field: string;
  fates: Partial<Record<TranslatedKind, Fate>>;
  /** A value a test sends to check the fate. */
  sample: unknown;
}

const both = (fate: Fate): Partial<Record<TranslatedKind, Fate>> => ({ 'openai-chat': fate, anthropic: fate });

/** Chat completions → Anthropic (an OpenAI-kind destination takes the chat body as sent). */
const CHAT: FieldFate[] = [
  { field: 'model', fates: { anthropic: 'model' }, sample: 'claude-test' },
  { field: 'messages', fates: { anthropic: 'messages' }, sample: [{ role: 'user', content: 'hi' }] },
  {
    field: 'tools',
    fates: { anthropic: 'tools' },
    sample: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
  },
  { field: 'functions', fates: { anthropic: 'tools' }, sample: [{ name: 'f', parameters: { type: 'object' } }] },
  { field: 'tool_choice', fates: { anthropic: 'tool_choice' }, sample: 'required' },
  { field: 'function_call', fates: { anthropic: 'tool_choice' }, sample: 'auto' },
  { field: 'parallel_tool_calls', fates: { anthropic: 'tool_choice.disable_parallel_tool_use' }, sample: false },
  { field: 'max_tokens', fates: { anthropic: 'max_tokens' }, sample: 300 },
  { field: 'max_completion_tokens', fates: { anthropic: 'max_tokens' }, sample: 300 },
  { field: 'temperature', fates: { anthropic: 'temperature' }, sample: 0.5 },
  { field: 'top_p', fates: { anthropic: 'top_p' }, sample: 0.9 },
  { field: 'stop', fates: { anthropic: 'stop_sequences' }, sample: ['END'] },
  { field: 'reasoning_effort', fates: { anthropic: 'thinking' }, sample: 'low' },
  { field: 'response_format', fates: { anthropic: 'tools' }, sample: { type: 'json_object' } },
  { field: 'web_search_options', fates: { anthropic: 'tools' }, sample: {} },
  { field: 'user', fates: { anthropic: 'metadata.user_id' }, sample: 'end-user-1' },
  { field: 'safety_identifier', fates: { anthropic: 'metadata.user_id' }, sample: 'end-user-1' },
  { field: 'stream', fates: { anthropic: 'gateway' }, sample: false },
  { field: 'stream_options', fates: { anthropic: 'gateway' }, sample: { include_usage: true } },
  { field: 'store', fates: { anthropic: 'gateway' }, sample: false },
  { field: 'metadata', fates: { anthropic: 'gateway' }, sample: { tag: 'x' } },
  { field: 'n', fates: { anthropic: 'gateway' }, sample: 1 },
  { field: 'seed', fates: { anthropic: null }, sample: 7 },
  { field: 'logit_bias', fates: { anthropic: null }, sample: { '50256': -100 } },
  { field: 'logprobs', fates: { anthropic: null }, sample: true },
  { field: 'top_logprobs', fates: { anthropic: null }, sample: 2 },
  { field: 'frequency_penalty', fates: { anthropic: null }, sample: 0.1 },
  { field: 'presence_penalty', fates: { anthropic: null }, sample: 0.1 },
  { field: 'service_tier', fates: { anthropic: null }, sample: 'auto' },
  { field: 'verbosity', fates: { anthropic: null }, sample: 'low' },
  { field: 'prompt_cache_key', fates: { anthropic: null }, sample: 'k' },
  { field: 'prediction', fates: { anthropic: null }, sample: { type: 'content', content: 'x' } },
  { field: 'modalities', fates: { anthropic: null }, sample: ['text'] },
];

/** Responses → OpenAI chat or Anthropic (a Responses model takes the body as sent). */
const RESPONSES: FieldFate[] = [
  { field: 'model', fates: both('model'), sample: 'x' },
  { field: 'input', fates: both('messages'), sample: 'hi' },
  { field: 'instructions', fates: { 'openai-chat': 'messages', anthropic: 'system' }, sample: 'Be brief.' },
  {
    field: 'tools',
    fates: both('tools'),
    sample: [{ type: 'function', name: 'f', parameters: { type: 'object' } }],
  },
  { field: 'tool_choice', fates: both('tool_choice'), sample: 'required' },
  {
    field: 'parallel_tool_calls',
    fates: { 'openai-chat': 'parallel_tool_calls', anthropic: 'tool_choice.disable_parallel_tool_use' },
    sample: false,
  },
  { field: 'max_output_tokens', fates: { 'openai-chat': 'max_completion_tokens', anthropic: 'max_tokens' }, sample: 300 },
  { field: 'temperature', fates: both('temperature'), sample: 0.5 },
  { field: 'top_p', fates: both('top_p'), sample: 0.9 },
  { field: 'reasoning.effort', fates: { 'openai-chat': 'reasoning_effort', anthropic: 'thinking' }, sample: 'low' },
  { field: 'reasoning.summary', fates: both(null), sample: 'auto' },
  { field: 'text.format', fates: { 'openai-chat': 'response_format', anthropic: 'tools' }, sample: { type: 'json_object' } },
  { field: 'text.verbosity', fates: { 'openai-chat': 'verbosity', anthropic: null }, sample: 'low' },
  { field: 'prompt_cache_key', fates: { 'openai-chat': 'prompt_cache_key', anthropic: null }, sample: 'thread-1' },
  { field: 'safety_identifier', fates: { 'openai-chat': 'safety_identifier', anthropic: 'metadata.user_id' }, sample: 'u1' },
  { field: 'user', fates: { 'openai-chat': 'user', anthropic: 'metadata.user_id' }, sample: 'u1' },
  { field: 'service_tier', fates: { 'openai-chat': 'service_tier', anthropic: null }, sample: 'auto' },
  { field: 'top_logprobs', fates: { 'openai-chat': 'top_logprobs', anthropic: null }, sample: 2 },
  { field: 'metadata', fates: both('gateway'), sample: { tag: 'x' } },
  { field: 'stream', fates: both('gateway'), sample: false },
  { field: 'store', fates: both('gateway'), sample: false },
  { field: 'background', fates: both('gateway'), sample: false },
  { field: 'previous_response_id', fates: both('gateway'), sample: null },
  { field: 'include', fates: both(null), sample: ['reasoning.encrypted_content'] },
  { field: 'client_metadata', fates: both(null), sample: { thread_id: 't' } },
  { field: 'truncation', fates: both(null), sample: 'auto' },
  { field: 'max_tool_calls', fates: both(null), sample: 3 },
  { field: 'prompt', fates: both(null), sample: { id: 'pmpt_1' } },
  { field: 'conversation', fates: both(null), sample: 'conv_1' },
  { field: 'stream_options', fates: both(null), sample: { include_obfuscation: false } },
];

/** Messages → OpenAI chat (an Anthropic-kind destination takes the body as sent). */
const MESSAGES: FieldFate[] = [
  { field: 'model', fates: { 'openai-chat': 'model' }, sample: 'x' },
  { field: 'messages', fates: { 'openai-chat': 'messages' }, sample: [{ role: 'user', content: 'hi' }] },
  { field: 'system', fates: { 'openai-chat': 'messages' }, sample: 'Be brief.' },
  { field: 'max_tokens', fates: { 'openai-chat': 'max_completion_tokens' }, sample: 300 },
  {
    field: 'tools',
    fates: { 'openai-chat': 'tools' },
    sample: [{ name: 'f', input_schema: { type: 'object' } }],
  },
  { field: 'tool_choice', fates: { 'openai-chat': 'tool_choice' }, sample: { type: 'any' } },
  { field: 'temperature', fates: { 'openai-chat': 'temperature' }, sample: 0.5 },
  { field: 'top_p', fates: { 'openai-chat': 'top_p' }, sample: 0.9 },
  { field: 'stop_sequences', fates: { 'openai-chat': 'stop' }, sample: ['END'] },
  { field: 'thinking', fates: { 'openai-chat': 'reasoning_effort' }, sample: { type: 'enabled', budget_tokens: 2_000 } },
  { field: 'output_config.effort', fates: { 'openai-chat': 'reasoning_effort' }, sample: 'low' },
  {
    field: 'output_config.format',
    fates: { 'openai-chat': 'response_format' },
    sample: { type: 'json_schema', schema: { type: 'object' } },
  },
  { field: 'metadata', fates: { 'openai-chat': 'user' }, sample: { user_id: 'u1' } },
  { field: 'stream', fates: { 'openai-chat': 'gateway' }, sample: false },
  { field: 'top_k', fates: { 'openai-chat': null }, sample: 5 },
  { field: 'service_tier', fates: { 'openai-chat': null }, sample: 'auto' },
  { field: 'context_management', fates: { 'openai-chat': null }, sample: { edits: [] } },
  { field: 'container', fates: { 'openai-chat': null }, sample: 'cntr_1' },
  { field: 'mcp_servers', fates: { 'openai-chat': null }, sample: [] },
];

/** Legacy completions → OpenAI chat or Anthropic (always translated). */
const COMPLETIONS: FieldFate[] = [
  { field: 'model', fates: both('model'), sample: 'x' },
  { field: 'prompt', fates: both('messages'), sample: 'Once' },
  { field: 'max_tokens', fates: { 'openai-chat': 'max_completion_tokens', anthropic: 'max_tokens' }, sample: 30 },
  { field: 'temperature', fates: both('temperature'), sample: 0.5 },
  { field: 'top_p', fates: both('top_p'), sample: 0.9 },
  { field: 'stop', fates: { 'openai-chat': 'stop', anthropic: 'stop_sequences' }, sample: ['END'] },
  { field: 'echo', fates: both('gateway'), sample: true },
  { field: 'stream', fates: both('gateway'), sample: false },
  { field: 'stream_options', fates: both('gateway'), sample: { include_usage: true } },
  { field: 'n', fates: both('gateway'), sample: 1 },
  { field: 'best_of', fates: both('gateway'), sample: 1 },
  { field: 'user', fates: both(null), sample: 'u1' },
  { field: 'seed', fates: both(null), sample: 7 },
  { field: 'logit_bias', fates: both(null), sample: { '50256': -100 } },
  { field: 'frequency_penalty', fates: both(null), sample: 0.1 },
  { field: 'presence_penalty', fates: both(null), sample: 0.1 },
];

export const FIELD_FATES: Record<InboundName, FieldFate[]> = {
  chat: CHAT,
  responses: RESPONSES,
  messages: MESSAGES,
  completions: COMPLETIONS,
};

/** The destinations each inbound protocol is translated for (the others take its body as sent). */
export const TRANSLATED_FOR: Record<InboundName, TranslatedKind[]> = {
  chat: ['anthropic'],
  responses: ['openai-chat', 'anthropic'],
  messages: ['openai-chat'],
  completions: ['openai-chat', 'anthropic'],
};

const indexes = new Map<InboundName, Map<string, FieldFate>>();
function indexOf(protocol: InboundName): Map<string, FieldFate> {
  let index = indexes.get(protocol);
  if (!index) {
    index = new Map(FIELD_FATES[protocol].map((entry) => [entry.field, entry]));
    indexes.set(protocol, index);
  }
  return index;
}

/** Object fields the table lists member by member (`text.format`, `text.verbosity`). */
function isGroup(index: Map<string, FieldFate>, field: string): boolean {
  for (const key of index.keys()) if (key.startsWith(`${field}.`)) return true;
  return false;
}

/** The fields of `body` dropped on the way to `kind`: listed as dropped, or not listed at all (never guessed). */
export function droppedFields(protocol: InboundName, body: Record<string, unknown>, kind: TranslatedKind): string[] {
  const index = indexOf(protocol);
  const dropped: string[] = [];
  const visit = (field: string, value: unknown): void => {
    if (value === undefined || value === null) return;
    if (isGroup(index, field) && typeof value === 'object' && !Array.isArray(value)) {
      for (const [member, inner] of Object.entries(value)) visit(`${field}.${member}`, inner);
      return;
    }
    const fate = index.get(field)?.fates[kind];
    if (fate === null || fate === undefined) dropped.push(field);
  };
  for (const [field, value] of Object.entries(body)) visit(field, value);
  return dropped;
}

/** The translated kind a destination speaks. */
export function translatedKind(destination: Destination): TranslatedKind {
  return destination.provider.kind === 'anthropic' ? 'anthropic' : 'openai-chat';
}

/** Whether a messages body carries cache marks (system blocks, message content blocks, tools). */
function hasCacheMarks(body: Record<string, unknown>): boolean {
  const marked = (value: unknown): boolean =>
    Array.isArray(value)
      ? value.some(marked)
      : typeof value === 'object' &&
        value !== null &&
        Object.entries(value).some(([key, inner]) => (key === 'cache_control' ? inner !== null && inner !== undefined : marked(inner)));
  return [body.system, body.messages, body.tools].some(marked);
}

/**
 * The request's fields its destination does not take (none when the caller's own body is sent). Anthropic cache
 * marks sit inside messages, system blocks and tools; OpenAI chat has no such mark (it caches on its own), so a
 * messages call translated to chat names `cache_control` when it carried any.
 */
export function droppedFieldsOf(request: NormalizedRequest, destination: Destination, native: boolean): string[] {
  if (native || !request.source) return [];
  const kind = translatedKind(destination);
  const dropped = droppedFields(request.source.protocol, request.source.body, kind);
  if (request.source.protocol === 'messages' && kind === 'openai-chat' && hasCacheMarks(request.source.body)) dropped.push('cache_control');
  return dropped;
}

const KIND_TITLES: Record<TranslatedKind, string> = { 'openai-chat': 'to OpenAI chat', anthropic: 'to Anthropic messages' };
const PROTOCOL_TITLES: Record<InboundName, string> = {
  chat: 'Chat completions (`/v1/chat/completions`)',
  responses: 'Responses (`/v1/responses`)',
  messages: 'Messages (`/v1/messages`)',
  completions: 'Legacy completions (`/v1/completions`)',
};

function fateText(fate: Fate | undefined): string {
  if (fate === null || fate === undefined) return 'dropped, named';
  if (fate === 'gateway') return 'served by the gateway';
  return `\`${fate}\``;
}

/** The table as docs/gateway.md shows it (a test keeps the two equal). */
export function renderFieldFates(): string {
  const sections: string[] = [];
  for (const protocol of Object.keys(FIELD_FATES) as InboundName[]) {
    const kinds = TRANSLATED_FOR[protocol];
    const lines = [
      `**${PROTOCOL_TITLES[protocol]}**`,
      '',
      `| field | ${kinds.map((kind) => KIND_TITLES[kind]).join(' | ')} |`,
      `|---|${kinds.map(() => '---|').join('')}`,
    ];
    for (const entry of FIELD_FATES[protocol])
      lines.push(`| \`${entry.field}\` | ${kinds.map((kind) => fateText(entry.fates[kind])).join(' | ')} |`);
    sections.push(lines.join('\n'));
  }
  return sections.join('\n\n');
}

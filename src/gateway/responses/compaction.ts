/**
 * Conversation compaction (`POST /v1/responses/compact`, `POST /v1/responses/{id}/compact`): the model writes a
 * summary of the conversation in one metered upstream call (operation `compact`, billed like any call). The
 * result keeps every user message verbatim and replaces the rest with one opaque `compaction` item that the
 * client sends back as input on its next turn.
 */
import type { Principal } from '../../accounts/principal.js';
import { newId } from '../../kernel/ids.js';
import type { ExecuteOptions } from '../execute.js';
import { collect, type DriverDeps } from '../protocols/driver.js';
import { responsesUsage } from '../protocols/responses/encode.js';
import { collectText } from '../protocols/shared/collect-text.js';
import type { CompactionSeal } from './compaction-seal.js';
import type { CallSignal } from '../normalized/index.js';
import { isJsonObject as isObject, type JsonObject } from '../../kernel/json.js';

export const COMPACTION_INSTRUCTIONS =
  'You compact conversations. Summarize the conversation transcript you are given so that an assistant can continue ' +
  'it without the original: keep goals, decisions, facts, names, file paths, code identifiers, tool results that still ' +
  'matter and open questions. Write the summary only, in plain text, without preamble.';

export interface CompactionRequest {
  principal: Principal;
  requestId: string;
  model: string;
  /** The conversation in Responses item form (input items, then output items). */
  items: JsonObject[];
  instructions?: string;
  signal: CallSignal;
  nowMs: number;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .map((part) =>
      typeof part.text === 'string' ? part.text : part.type === 'input_image' ? '[image]' : part.type === 'input_file' ? '[file]' : '',
    )
    .join('');
}

/** One transcript line per item; reasoning is left out, earlier compactions contribute their summary. */
function transcriptLine(item: JsonObject, seal: CompactionSeal): string | undefined {
  const type = typeof item.type === 'string' ? item.type : 'message';
  switch (type) {
    case 'message':
      return `${String(item.role ?? 'user')}: ${contentText(item.content)}`;
    case 'function_call':
    case 'custom_tool_call':
      return `assistant called tool ${String(item.name)} (call ${String(item.call_id)}): ${String(item.arguments ?? item.input ?? '')}`;
    case 'function_call_output':
    case 'custom_tool_call_output':
      return `tool result (call ${String(item.call_id)}): ${typeof item.output === 'string' ? item.output : JSON.stringify(item.output)}`;
    case 'compaction': {
      const summary = typeof item.encrypted_content === 'string' ? seal.open(item.encrypted_content) : undefined;
      return summary === undefined ? undefined : `summary of the earlier conversation: ${summary}`;
    }
    default:
      return undefined;
  }
}

export function conversationTranscript(items: JsonObject[], seal: CompactionSeal): string {
  return items
    .map((item) => transcriptLine(item, seal))
    .filter((line): line is string => line !== undefined)
    .join('\n\n');
}

function userMessages(items: JsonObject[]): JsonObject[] {
  return items.filter((item) => (item.type === undefined || item.type === 'message') && item.role === 'user');
}

export async function compactConversation(driver: DriverDeps, seal: CompactionSeal, compaction: CompactionRequest): Promise<JsonObject> {
  const transcript = conversationTranscript(compaction.items, seal);
  const system = compaction.instructions ? `${COMPACTION_INSTRUCTIONS}\n\n${compaction.instructions}` : COMPACTION_INSTRUCTIONS;
  const options: ExecuteOptions = {
    principal: compaction.principal,
    requestId: compaction.requestId,
    operation: 'compact',
    signal: compaction.signal,
    request: {
      model: compaction.model,
      system,
      messages: [{ role: 'user', content: [{ type: 'text', text: transcript === '' ? '(empty conversation)' : transcript }] }],
      tools: [],
      stream: false,
    },
  };
  const summary = await collect(driver, options, (call) => collectText(call.parts, system + transcript));
  return {
    id: newId('resp'),
    object: 'response.compaction',
    created_at: Math.floor(compaction.nowMs / 1000),
    output: [...userMessages(compaction.items), { type: 'compaction', id: newId('cmp'), encrypted_content: seal.seal(summary.text) }],
    usage: responsesUsage(summary.usage),
  };
}

/**
 * Input items with every compaction item this service sealed replaced by the summary it carries, as a developer
 * message: upstreams cannot read our sealed items. Items sealed by someone else (an upstream's own compaction)
 * are left for that upstream.
 */
export function expandCompactionItems(input: unknown, seal: CompactionSeal): unknown {
  if (!Array.isArray(input)) return input;
  return input.map((item: unknown) => {
    if (!isObject(item) || item.type !== 'compaction' || typeof item.encrypted_content !== 'string') return item;
    const summary = seal.open(item.encrypted_content);
    if (summary === undefined) return item;
    return {
      type: 'message',
      role: 'developer',
      content: [{ type: 'input_text', text: `Summary of the earlier conversation (compacted):\n${summary}` }],
    };
  });
}

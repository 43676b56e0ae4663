/**
 * What is kept of a request for later reading: a chat completion's request messages (OpenAI's
 * `ChatCompletionStoreMessage`: the message plus an `id` and `content_parts`) and a response's input items
 * (OpenAI's input item list: every item with an `id`, plain-string content expanded to typed content parts).
 */
import { newId } from '../../kernel/ids.js';
import type { StoredItem } from './stored-repository.js';
import { isJsonObject as isObject, type JsonObject } from '../../kernel/json.js';

export function chatStoreMessages(completionId: string, messages: unknown): StoredItem[] {
  if (!Array.isArray(messages)) return [];
  return messages.filter(isObject).map((message, index) => {
    const itemId = `${completionId}-${index}`;
    const content = message.content;
    if (!Array.isArray(content)) {
      return { itemId, item: { ...message, id: itemId, content: content ?? null, content_parts: null } };
    }
    const text = content
      .filter((part): part is JsonObject => isObject(part) && part.type === 'text' && typeof part.text === 'string')
      .map((part) => part.text as string)
      .join('');
    return { itemId, item: { ...message, id: itemId, content: text === '' ? null : text, content_parts: content } };
  });
}

const ID_PREFIX_BY_TYPE: Record<string, string> = {
  message: 'msg',
  function_call: 'fc',
  function_call_output: 'fco',
  custom_tool_call: 'ctc',
  custom_tool_call_output: 'ctco',
  reasoning: 'rs',
  compaction: 'cmp',
};

function textPart(role: unknown, text: string): JsonObject {
  return role === 'assistant' ? { type: 'output_text', text, annotations: [] } : { type: 'input_text', text };
}

function inputItem(entry: JsonObject): JsonObject {
  const type = typeof entry.type === 'string' ? entry.type : 'message';
  const id = typeof entry.id === 'string' && entry.id !== '' ? entry.id : newId(ID_PREFIX_BY_TYPE[type] ?? 'item');
  if (type !== 'message') return { ...entry, id };
  const content = typeof entry.content === 'string' ? [textPart(entry.role, entry.content)] : entry.content;
  return { ...entry, id, type: 'message', content, status: entry.status ?? 'completed' };
}

/** The input items of a Responses request body (`input`: a string or a list of items). */
export function responseInputItems(input: unknown): StoredItem[] {
  const entries: JsonObject[] =
    typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : Array.isArray(input) ? input.filter(isObject) : [];
  return entries.map((entry) => {
    const item = inputItem(entry);
    return { itemId: item.id as string, item };
  });
}

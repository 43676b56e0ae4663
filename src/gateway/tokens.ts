/**
 * Token counts we compute ourselves: a cheap upper bound for holds (no tokenizer on the hot path) and a
 * tokenizer count (`gpt-tokenizer`, loaded on first use) for count_tokens and for settling a call whose
 * upstream never reported usage.
 */
import { textOf, type NormalizedRequest } from './normalized/index.js';

/** Flat allowance per image (a high-detail tile budget); images are not tokenized as text. */
const IMAGE_TOKENS = 1_000;

type CountTokens = (text: string) => number;
let countTokensLoaded: Promise<CountTokens> | undefined;

function loadCounter(): Promise<CountTokens> {
  countTokensLoaded ??= import('gpt-tokenizer').then((module) => (text: string) => module.countTokens(text));
  return countTokensLoaded;
}

function requestText(request: NormalizedRequest): { text: string; images: number } {
  let text = request.system ?? '';
  let images = 0;
  for (const message of request.messages) {
    text += textOf(message.content);
    for (const part of message.content) if (part.type === 'image') images += 1;
    if (message.role === 'assistant') for (const call of message.toolCalls) text += call.name + call.arguments;
  }
  for (const tool of request.tools) {
    text += tool.name;
    if (tool.type === 'function') text += (tool.description ?? '') + JSON.stringify(tool.parameters ?? {});
    if (tool.type === 'custom') text += tool.description ?? '';
  }
  return { text, images };
}

/** How much input a request carries, measured once per call: both quick estimates below derive from it. */
export interface InputSize {
  chars: number;
  images: number;
  messages: number;
}

export function inputSizeOf(request: NormalizedRequest): InputSize {
  const { text, images } = requestText(request);
  return { chars: text.length, images, messages: request.messages.length };
}

/** An upper bound (one token per 3 UTF-16 units) good enough to size a hold without tokenizing. */
export function estimateInputTokensUpperBound(size: InputSize): number {
  return Math.ceil(size.chars / 3) + size.images * IMAGE_TOKENS + 8 * size.messages;
}

export async function countInputTokens(request: NormalizedRequest): Promise<number> {
  const { text, images } = requestText(request);
  const count = await loadCounter();
  // A few tokens per message for role markers, as the upstream chat formats add them.
  return count(text) + images * IMAGE_TOKENS + 3 * request.messages.length;
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  return (await loadCounter())(text);
}

/** A quick central estimate (one token per 4 characters) for figures shown before the upstream reports usage. */
export function roughInputTokens(size: InputSize): number {
  return Math.ceil(size.chars / 4) + size.images * IMAGE_TOKENS;
}

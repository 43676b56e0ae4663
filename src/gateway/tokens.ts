/**
 * Token counts we compute ourselves: a cheap upper bound for holds (no tokenizer on the hot path) and a
 * tokenizer count (`gpt-tokenizer`, loaded on first use) for count_tokens and for settling a call whose
 * upstream never reported usage. A request is counted in three parts (instructions, tool definitions,
 * messages); the first two recur nearly unchanged on every call of a client (Codex sends about 21 kB of
 * instructions and 10 kB of tools each time; tokenizing the instructions alone takes tens of ms), so their
 * counts are kept in a small cache keyed by length and hash.
 */
import { createHash } from 'node:crypto';
import { textOf, type NormalizedRequest } from './normalized/index.js';

/** Flat allowance per image (a high-detail tile budget); images are not tokenized as text. */
const IMAGE_TOKENS = 1_000;

type CountTokens = (text: string) => number;
let countTokensLoaded: Promise<CountTokens> | undefined;

function loadCounter(): Promise<CountTokens> {
  countTokensLoaded ??= import('gpt-tokenizer').then((module) => (text: string) => module.countTokens(text));
  return countTokensLoaded;
}

/** The request's text in its three parts: instructions, messages (and the calls they carry), tool definitions. */
function requestParts(request: NormalizedRequest): { system: string; messages: string; tools: string; images: number } {
  let messages = '';
  let images = 0;
  for (const message of request.messages) {
    messages += textOf(message.content);
    for (const part of message.content) if (part.type === 'image') images += 1;
    if (message.role === 'assistant') for (const call of message.toolCalls) messages += call.name + call.arguments;
  }
  let tools = '';
  for (const tool of request.tools) {
    tools += tool.name;
    if (tool.type === 'function') tools += (tool.description ?? '') + JSON.stringify(tool.parameters ?? {});
    if (tool.type === 'custom') tools += tool.description ?? '';
  }
  return { system: request.system ?? '', messages, tools, images };
}

/**
 * Token counts of recurring text, most recently used kept, at most `entriesMax` of them. Texts shorter than
 * `charsMin` are counted directly (cheaper than hashing them). Keyed by length and SHA-256, never by the text.
 */
export class TokenCountCache {
  private readonly counts = new Map<string, number>();

  constructor(
    readonly entriesMax = 256,
    readonly charsMin = 1_024,
  ) {}

  get size(): number {
    return this.counts.size;
  }

  count(text: string, counter: CountTokens): number {
    if (text.length < this.charsMin || this.entriesMax === 0) return counter(text);
    const key = `${text.length}:${createHash('sha256').update(text).digest('base64url')}`;
    const cached = this.counts.get(key);
    if (cached !== undefined) {
      // Most recently used last, so the oldest entry is the first to go.
      this.counts.delete(key);
      this.counts.set(key, cached);
      return cached;
    }
    const counted = counter(text);
    this.counts.set(key, counted);
    if (this.counts.size > this.entriesMax) this.counts.delete(this.counts.keys().next().value as string);
    return counted;
  }
}

const recurringText = new TokenCountCache();

/** How much input a request carries, measured once per call: both quick estimates below derive from it. */
export interface InputSize {
  chars: number;
  images: number;
  messages: number;
}

export function inputSizeOf(request: NormalizedRequest): InputSize {
  const { system, messages, tools, images } = requestParts(request);
  return { chars: system.length + messages.length + tools.length, images, messages: request.messages.length };
}

/** An upper bound (one token per 3 UTF-16 units) good enough to size a hold without tokenizing. */
export function estimateInputTokensUpperBound(size: InputSize): number {
  return Math.ceil(size.chars / 3) + size.images * IMAGE_TOKENS + 8 * size.messages;
}

/** The tokenizer's count of the request's text (instructions and tool definitions from `cache` when seen before). */
export async function countInputTokens(request: NormalizedRequest, cache: TokenCountCache = recurringText): Promise<number> {
  const { system, messages, tools, images } = requestParts(request);
  const count = await loadCounter();
  const text = cache.count(system, count) + cache.count(tools, count) + (messages === '' ? 0 : count(messages));
  // A few tokens per message for role markers, as the upstream chat formats add them.
  return text + images * IMAGE_TOKENS + 3 * request.messages.length;
}

export async function countTextTokens(text: string): Promise<number> {
  if (text === '') return 0;
  return (await loadCounter())(text);
}

/** A quick central estimate (one token per 4 characters) for figures shown before the upstream reports usage. */
export function roughInputTokens(size: InputSize): number {
  return Math.ceil(size.chars / 4) + size.images * IMAGE_TOKENS;
}

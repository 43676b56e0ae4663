/** OpenAI chat completions (`POST /v1/chat/completions`) as an inbound protocol. */
import { newId } from '../../../kernel/ids.js';
import { upstreamError, type StoredObjects } from '../../normalized/index.js';
import type { InboundProtocol } from '../contract.js';
import { PartCollector, collectParts } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import type { GatewayCall } from '../../execute.js';
import { NativeChatRelay } from './native.js';
import { decodeChatRequest, type DecodedChat } from './decode.js';
import { chatCompletionObject } from './encode.js';
import { storeChatCompletion } from './store.js';
import { ChatStreamEncoder } from './stream.js';

export function chatProtocol(stored: StoredObjects): InboundProtocol<DecodedChat> {
  return {
    operation: 'chat',
    decode: (body) => decodeChatRequest(body),
    async collect(decoded, call, context) {
      if (call.native) return nativeCompletion(decoded, call, context.nowMs);
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      return chatCompletionObject({
        id: newId('chatcmpl', 24),
        createdSeconds: Math.floor(context.nowMs / 1000),
        model: decoded.request.model,
        collected,
        legacyFunctions: decoded.request.legacyFunctions,
      });
    },
    stream: (decoded, call, context) =>
      call.native
        ? new NativeChatRelay(decoded.request.model, decoded.includeUsage, decoded.store, context.nowMs)
        : new ChatStreamEncoder(decoded.request.model, decoded.includeUsage, context.nowMs, decoded.store, decoded.request.legacyFunctions),
    store: (decoded, completion, context) => storeChatCompletion(stored, decoded, completion, context),
  };
}

/** The upstream's own completion body, relabelled (the caller's body went as sent). */
async function nativeCompletion(decoded: DecodedChat, call: GatewayCall, nowMs: number): Promise<Json> {
  const relay = new NativeChatRelay(decoded.request.model, decoded.includeUsage, decoded.store, nowMs);
  let body: Json | undefined;
  const collector = new PartCollector();
  for await (const part of call.parts) {
    collector.add(part);
    if (part.type === 'native-chunk') body = part.chunk;
  }
  if (collector.result.error) throw collector.result.error.toAppError();
  if (!body) throw upstreamError({ kind: 'protocol' }).toAppError();
  return relay.completion(body);
}

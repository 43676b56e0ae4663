/** OpenAI chat completions (`POST /v1/chat/completions`) as an inbound protocol. */
import { newId } from '../../../kernel/ids.js';
import type { StoredObjects } from '../../normalized/index.js';
import type { InboundProtocol } from '../contract.js';
import { collectParts } from '../shared/collect.js';
import { decodeChatRequest, type DecodedChat } from './decode.js';
import { chatCompletionObject } from './encode.js';
import { storeChatCompletion } from './store.js';
import { ChatStreamEncoder } from './stream.js';

export function chatProtocol(stored: StoredObjects): InboundProtocol<DecodedChat> {
  return {
    operation: 'chat',
    decode: (body) => decodeChatRequest(body),
    async collect(decoded, call, context) {
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      return chatCompletionObject({
        id: newId('chatcmpl', 24),
        createdSeconds: Math.floor(context.nowMs / 1000),
        model: decoded.request.model,
        collected,
      });
    },
    stream: (decoded, _call, context) => new ChatStreamEncoder(decoded.request.model, decoded.includeUsage, context.nowMs, decoded.store),
    store: (decoded, completion, context) => storeChatCompletion(stored, decoded, completion, context),
  };
}

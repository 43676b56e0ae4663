/**
 * Anthropic-style Messages (`POST /v1/messages`) as an inbound protocol. An Anthropic-kind destination's own reply
 * is relayed (native.ts), relabelled with the caller's model id; any other destination's parts are encoded here.
 */
import { upstreamError } from '../../normalized/index.js';
import { roughInputTokens } from '../../tokens.js';
import type { Decoded, InboundProtocol } from '../contract.js';
import { PartCollector, collectParts } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import { decodeMessagesRequest } from './decode.js';
import { messageObject } from './encode.js';
import { NativeMessagesRelay } from './native.js';
import { MessagesStreamEncoder } from './stream.js';

export const messagesProtocol: InboundProtocol<Decoded> = {
  operation: 'messages',
  decode: (body, headers) => ({ request: decodeMessagesRequest(body, { requireMaxTokens: true, headers }) }),
  async collect({ request }, call) {
    if (!call.native) {
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      return messageObject({ model: request.model, collected, estimatedInputTokens: roughInputTokens(call.inputSize) });
    }
    const relay = new NativeMessagesRelay(request.model);
    const events: Json[] = [];
    const collector = new PartCollector();
    for await (const part of call.parts) {
      collector.add(part);
      if (part.type === 'native-event') events.push(part.event);
    }
    if (collector.result.error) throw collector.result.error.toAppError();
    const message = relay.message(events, collector.result);
    if (!message) throw upstreamError({ kind: 'protocol' }).toAppError();
    return message;
  },
  stream: ({ request }, call) =>
    call.native ? new NativeMessagesRelay(request.model) : new MessagesStreamEncoder(request.model, roughInputTokens(call.inputSize)),
};

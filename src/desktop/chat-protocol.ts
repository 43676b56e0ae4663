/**
 * Desktop chat's send (`POST /api/v1/desktop-chat/conversations/{id}/messages`, chat mode) as an inbound protocol of
 * the gateway's driver: decode reads the conversation and its saved context (and takes a free message when the
 * quota covers the model), the call runs like any other, and the answer is desktop chat's own — `{messages, free,
 * free_quota}` whole, or the server-sent events `delta`, then `done` (the stored messages) or `error`.
 */
import type { CallContext, Decoded, DecodeInput, InboundProtocol, StreamEncoder } from '../gateway/protocols/contract.js';
import type { GatewayCall } from '../gateway/execute.js';
import { collectParts, PartCollector } from '../gateway/protocols/shared/collect.js';
import type { Json } from '../gateway/protocols/shared/decode-helpers.js';
import type { StreamPart } from '../gateway/normalized/stream-parts.js';
import { AppError } from '../kernel/errors.js';
import { encodeSseFrame } from '../kernel/sse.js';
import type { DesktopChat, PreparedMessage } from './chat.js';

export interface DecodedDesktopChat extends Decoded, PreparedMessage {}

function customerIdOf(input: DecodeInput): number {
  // The route's caller rule admits customers only; anything else is a wiring mistake, not the caller's.
  if (input.principal.kind !== 'customer') throw new AppError('INTERNAL', 'Desktop chat is sent by a customer');
  return input.principal.customerId;
}

/** Writes `delta` per text delta, then `done` with the stored messages, or `error` when the upstream failed. */
class DesktopChatStream implements StreamEncoder {
  private readonly collector = new PartCollector();

  constructor(private readonly decoded: DecodedDesktopChat) {}

  opening(): string {
    return '';
  }

  encode(part: StreamPart): string {
    this.collector.add(part);
    return part.type === 'text-delta' ? encodeSseFrame({ event: 'delta', data: { text: part.delta } }) : '';
  }

  async closing(): Promise<string> {
    const collected = this.collector.result;
    if (collected.error) {
      const error = collected.error.toAppError();
      const message = error.status >= 500 ? 'The model call failed' : error.message;
      return encodeSseFrame({ event: 'error', data: { code: error.code, message } });
    }
    if (collected.finish === undefined) return '';
    return encodeSseFrame({ event: 'done', data: { messages: await this.decoded.complete(collected), free: this.decoded.free } });
  }
}

export function desktopChatProtocol(chat: Pick<DesktopChat, 'prepare'>): InboundProtocol<DecodedDesktopChat> {
  return {
    operation: 'chat',
    decode: (body, _headers, input) =>
      chat.prepare(customerIdOf(input), Number(input.params?.conversation_id), String(body.content), {
        requestId: input.requestId,
        stream: body.stream === true,
      }),
    refused: (decoded, error) => decoded.refused(error),
    async collect(decoded: DecodedDesktopChat, call: GatewayCall, _context: CallContext): Promise<Json> {
      const collected = await collectParts(call.parts);
      if (collected.error) throw collected.error.toAppError();
      const messages = await decoded.complete(collected);
      return { messages, free: decoded.free, free_quota: await decoded.freeQuota() };
    },
    stream: (decoded) => new DesktopChatStream(decoded),
  };
}

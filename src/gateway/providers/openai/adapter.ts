/**
 * The OpenAI-kind provider: chat completions for normalized requests; the Responses API, natively, when the
 * destination speaks it and the caller sent a Responses body (passed through with only `model` rewritten).
 */
import type { ProviderConfig } from '../../../config/sections/gateway.js';
import type { Clock } from '../../../kernel/clock.js';
import {
  nativeStructuredOutput,
  upstreamError,
  type CallSignal,
  type ProviderAdapter,
  type ProviderCall,
  type StreamPart,
} from '../../normalized/index.js';
import { structuredAnswer } from '../shared/structured-tool.js';
import { customToolNames } from '../shared/custom-tools.js';
import { JSON_BODY_LIMIT_BYTES, jsonReplyParts } from '../shared/upstream-exchange.js';
import { UpstreamHttp } from '../shared/upstream-http.js';
import { decodeChatBody, decodeChatStream } from './chat-decoder.js';
import { toChatRequest } from './convert-request.js';
import { openaiErrorMessage } from './map-error.js';
import { decodeResponsesBody, decodeResponsesStream } from './responses-decoder.js';

/**
 * A chat caller's body for an OpenAI-kind upstream: as sent, `model` rewritten and usage always asked for (billing
 * reads it; the relay leaves the usage chunk out when the caller did not ask). `store` is served by the gateway
 * (stored completions), not the upstream.
 */
function chatPassthroughBody(body: Record<string, unknown>, upstreamModel: string, stream: boolean): Record<string, unknown> {
  const { store: _store, ...rest } = body;
  const sent: Record<string, unknown> = { ...rest, model: upstreamModel, stream };
  if (stream) {
    const options = typeof body.stream_options === 'object' && body.stream_options !== null ? body.stream_options : {};
    sent.stream_options = { ...options, include_usage: true };
  }
  return sent;
}

export function createOpenAiAdapter(provider: ProviderConfig, clock: Clock): ProviderAdapter {
  const http = new UpstreamHttp(provider, openaiErrorMessage, clock);
  const headers: Record<string, string> = provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {};

  async function stream(call: ProviderCall): Promise<AsyncIterable<StreamPart>> {
    const { request, destination, signal } = call;
    const upstreamModel = destination.model.upstreamModel;
    const native = call.native && request.native?.protocol === 'openai-responses';
    const nativeChat = call.native && request.native?.protocol === 'openai-chat';
    const body = native
      ? JSON.stringify({ ...request.native!.body, model: upstreamModel, stream: request.stream })
      : nativeChat
        ? JSON.stringify(chatPassthroughBody(request.native!.body, upstreamModel, request.stream))
        : JSON.stringify(toChatRequest(request, upstreamModel, { nativeStructuredOutput: nativeStructuredOutput(destination) }));
    const path = native ? '/responses' : '/chat/completions';
    const response = await http.post({
      path,
      body,
      headers: request.stream
        ? { ...headers, accept: 'text/event-stream', 'x-request-id': call.requestId }
        : { ...headers, 'x-request-id': call.requestId },
      signal,
    });
    const customNames = customToolNames(request.tools);
    if (native) return request.stream ? decodeResponsesStream(response.body) : jsonReplyParts(response.body, decodeResponsesBody);
    const parts = request.stream
      ? decodeChatStream(response.body, customNames, nativeChat)
      : jsonReplyParts(response.body, (parsed: object) => decodeChatBody(parsed, customNames, nativeChat));
    return !nativeChat && request.responseFormat !== undefined && !nativeStructuredOutput(destination) ? structuredAnswer(parts) : parts;
  }

  async function embed(options: {
    body: Record<string, unknown>;
    signal: CallSignal;
    requestId: string;
  }): Promise<Record<string, unknown>> {
    const response = await http.post({
      path: '/embeddings',
      body: JSON.stringify(options.body),
      headers: { ...headers, 'x-request-id': options.requestId },
      signal: options.signal,
    });
    let parsed: unknown;
    try {
      parsed = JSON.parse(await response.body.text(JSON_BODY_LIMIT_BYTES));
    } catch {
      throw upstreamError({ kind: 'protocol', message: 'The embedding model answered with unreadable JSON' });
    }
    if (parsed === null || typeof parsed !== 'object') throw upstreamError({ kind: 'protocol' });
    return parsed as Record<string, unknown>;
  }

  return { stream, embed, close: () => http.close() };
}

/** The Anthropic-kind provider: Messages API, streamed or not; also counts a Messages request's input tokens upstream. */
import type { ProviderConfig } from '../../../config/sections/gateway.js';
import type { Clock } from '../../../kernel/clock.js';
import type { ProviderAdapter, ProviderCall, StreamPart } from '../../normalized/index.js';
import { customToolNames } from '../shared/custom-tools.js';
import { JSON_BODY_LIMIT_BYTES, jsonReplyParts } from '../shared/upstream-exchange.js';
import { UpstreamHttp } from '../shared/upstream-http.js';
import { STRUCTURED_OUTPUT_TOOL, structuredAnswer } from '../shared/structured-tool.js';
import { toAnthropicRequest } from './convert-request.js';
import { decodeAnthropicBody, decodeAnthropicStream } from './decoder.js';
import { anthropicErrorMessage } from './map-error.js';
import { anthropicConvertOptions } from './set-aside.js';
import type { AnthropicRequestBody, AnthropicResponseBody } from './wire-types.js';

export const ANTHROPIC_VERSION = '2023-06-01';
const FORWARDED_HEADERS = ['content-type', 'retry-after', 'request-id'];

export function createAnthropicAdapter(provider: ProviderConfig, clock: Clock): ProviderAdapter {
  const http = new UpstreamHttp(provider, anthropicErrorMessage, clock);
  const headers: Record<string, string> = {
    'anthropic-version': ANTHROPIC_VERSION,
    ...(provider.apiKey ? { 'x-api-key': provider.apiKey } : {}),
  };

  async function stream(call: ProviderCall): Promise<AsyncIterable<StreamPart>> {
    const { request, destination, signal } = call;
    const upstreamModel = destination.model.upstreamModel;
    // A Messages caller's body goes as sent (model rewritten), with its beta headers: nothing is flattened or dropped.
    const native = call.native && request.native?.protocol === 'anthropic-messages' ? request.native : undefined;
    const body = native
      ? { ...native.body, model: upstreamModel, stream: request.stream }
      : toAnthropicRequest(request, anthropicConvertOptions(destination));
    const sent = native ? { ...headers, ...native.headers } : headers;
    const response = await http.post({
      path: '/v1/messages',
      body: JSON.stringify(body),
      headers: request.stream ? { ...sent, accept: 'text/event-stream' } : sent,
      signal,
    });
    const customNames = customToolNames(request.tools);
    const options = { native: native !== undefined };
    const parts = request.stream
      ? decodeAnthropicStream(response.body, customNames, options)
      : jsonReplyParts(response.body, (parsed: AnthropicResponseBody) => decodeAnthropicBody(parsed, customNames, options));
    // Structured output through the `structured_output` tool (forced, or offered beside the caller's own tools).
    const structured = !native && (body as AnthropicRequestBody).tools?.some((tool) => tool.name === STRUCTURED_OUTPUT_TOOL);
    return structured ? structuredAnswer(parts) : parts;
  }

  return {
    stream,
    async countTokens({ request, destination, signal }) {
      // The caller's Messages body as sent (model rewritten) to Anthropic's own counter.
      const native = request.native?.protocol === 'anthropic-messages' ? request.native : undefined;
      const response = await http.forward({
        path: '/v1/messages/count_tokens',
        body: JSON.stringify({ ...native?.body, model: destination.model.upstreamModel }),
        // The caller's version and betas, as on /v1/messages.
        headers: native ? { ...headers, ...native.headers } : headers,
        signal,
      });
      const forwarded: Record<string, string> = {};
      for (const name of FORWARDED_HEADERS) {
        const value = response.headers[name];
        if (typeof value === 'string') forwarded[name] = value;
      }
      return { status: response.statusCode, headers: forwarded, body: Buffer.from(await response.body.text(JSON_BODY_LIMIT_BYTES)) };
    },
    close: () => http.close(),
  };
}

/**
 * `POST /v1/responses`: OpenAI Responses create, streamed or not. A Responses-capable destination gets the
 * caller's body natively (model rewritten) and its events are relayed; any other destination is driven through
 * the normalized middle and the events are built here. `background: true` hands over to the lifecycle.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GatewayCall } from '../../../gateway/execute.js';
import { decodeResponsesRequest, inputItemsOf } from '../../../gateway/protocols/openai-responses/decode.js';
import { ResponsesEncoder, sseEvent } from '../../../gateway/protocols/openai-responses/encode.js';
import { NativeResponsesRelay } from '../../../gateway/protocols/openai-responses/native.js';
import { responseFromCall } from '../../../gateway/protocols/openai-responses/run.js';
import type { Services } from '../../../services.js';
import type { App } from '../../types.js';
import { SseWriter, bodyOf, clientAbortSignal, principalOf } from './call-context.js';
import { streamStoredResponse } from '../gateway-stored-lifecycle.js';

type Json = Record<string, unknown>;

const ResponsesBody = Type.Object(
  {
    model: Type.String({ description: 'A model id or alias such as `power-ai`.' }),
    // A string or a list of items; checked by the decoder (a union here would meet the validator's type coercion).
    input: Type.Unknown({ description: 'A string, or a list of input items (messages, function calls and their outputs).' }),
    instructions: Type.Optional(Type.String()),
    max_output_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
    stream: Type.Optional(Type.Boolean()),
    store: Type.Optional(Type.Boolean()),
    background: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: true },
);

export async function responsesRoutes(app: App, services: Services): Promise<void> {
  app.post('/v1/responses', {
    config: { auth: 'api', surface: 'gateway' },
    schema: {
      tags: ['Model API: responses'],
      summary: 'Create a model response',
      description:
        'OpenAI-compatible. `stream: true` returns server-sent events (`response.created` … `response.completed`; a failure after the stream started ends with `response.failed`). `background: true` queues the response; poll GET /v1/responses/{response_id}.',
      body: ResponsesBody,
    },
    handler: async (request, reply) => {
      const body = bodyOf(request);
      await services.gateway.responses.prepareInput(principalOf(request), body);
      const normalized = decodeResponsesRequest(body);
      if (body.background === true) {
        const queued = await services.gateway.responses.createBackground({ principal: principalOf(request), body, requestId: request.id });
        return body.stream === true ? streamStoredResponse({ request, reply, services, response: queued }) : queued;
      }
      const signal = clientAbortSignal(reply);
      const call = await services.gateway.execute({ principal: principalOf(request), request: normalized, operation: 'responses', requestId: request.id, signal, host: request.headers.host });
      if (normalized.stream) return streamResponses({ request, reply, services, call, body, model: normalized.model });
      const { response, error } = await responseFromCall(call, body, normalized.model);
      if (error) throw error.toAppError();
      await saveResponse(services, request, body, response);
      return response;
    },
  });
}

async function streamResponses(options: { request: FastifyRequest; reply: FastifyReply; services: Services; call: GatewayCall; body: Json; model: string }): Promise<FastifyReply> {
  const { request, reply, call, body, model } = options;
  const sse = new SseWriter(reply, request.id);
  let final: Json | undefined;
  try {
    if (call.native) {
      const relay = new NativeResponsesRelay(model, body);
      for await (const part of call.parts) await sse.write(relay.encode(part));
      final = relay.latest;
    } else {
      const encoder = new ResponsesEncoder({ model, body });
      for (const event of encoder.opening()) await sse.write(sseEvent(event));
      for await (const part of call.parts) for (const event of encoder.encode(part)) await sse.write(sseEvent(event));
      final = encoder.response();
    }
  } finally {
    sse.end();
  }
  if (final && final.status !== 'in_progress') await saveResponse(options.services, request, body, final);
  return reply;
}

async function saveResponse(services: Services, request: FastifyRequest, body: Json, response: Json): Promise<void> {
  try {
    await services.gateway.stored.saveResponse({ principal: principalOf(request), requestId: request.id, store: body.store !== false, inputItems: inputItemsOf(body.input), response });
  } catch (error) {
    request.log.error({ err: error, requestId: request.id }, 'storing a response failed');
  }
}

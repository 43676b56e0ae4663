/**
 * Lifecycle routes of the model-API gateway: legacy completions, retrieve (with stream replay), cancel,
 * compaction (the spec's per-response form and OpenAI's form) and input-token counting.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { runCompletions } from '../../gateway/protocols/openai-completions-run.js';
import { closingEvents, numbered, openingEvents, TERMINAL_STATUSES } from '../../gateway/responses/replay.js';
import { encodeSseFrame, type SseFrame } from '../../kernel/sse.js';
import type { Services } from '../../services.js';
import type { App } from '../types.js';
import { clientAbortSignal, principalOf, SseWriter } from './gateway/call-context.js';
import { type JsonObject } from '../../kernel/json.js';

const config = { auth: 'api', surface: 'gateway' } as const;
const ResponseParams = Type.Object({ response_id: Type.String({ minLength: 1, maxLength: 200 }) });
const FreeBody = Type.Object({}, { additionalProperties: true });
const responseTags = ['Model API: responses'];

/** Writes SSE frames as they come; stops (closing the source, which settles its call) when the client is gone. */
async function sendEvents(request: FastifyRequest, reply: FastifyReply, frames: AsyncIterable<SseFrame>): Promise<FastifyReply> {
  const sse = new SseWriter(reply, request.id);
  try {
    for await (const frame of frames) {
      if (sse.closed) break;
      await sse.write(encodeSseFrame(frame));
    }
  } finally {
    sse.end();
  }
  return reply;
}

/**
 * The event stream of a stored response (replay, or a background response followed to its end): the opening
 * events at once, the rest when the response has finished. Used by retrieve and by a streamed background create.
 */
export async function streamStoredResponse(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  services: Services;
  response: JsonObject;
  startingAfter?: number;
}): Promise<FastifyReply> {
  const { request, reply, response, startingAfter } = options;
  const lifecycle = options.services.gateway.responses;
  const principal = principalOf(request);
  const signal = clientAbortSignal(reply);
  async function* replay(): AsyncGenerator<SseFrame> {
    for (const event of numbered(openingEvents(response), 0, startingAfter)) yield { event: String(event.type), data: event };
    const final = TERMINAL_STATUSES.includes(String(response.status)) ? response : await lifecycle.waitForEnd(principal, String(response.id), signal);
    for (const event of numbered(closingEvents(final), 2, startingAfter)) yield { event: String(event.type), data: event };
  }
  return sendEvents(request, reply, replay());
}

async function* legacyFrames(frames: AsyncIterable<JsonObject | '[DONE]'>): AsyncGenerator<SseFrame> {
  for await (const frame of frames) yield { data: frame === '[DONE]' ? '[DONE]' : frame };
}

export async function gatewayLifecycleRoutes(app: App, services: Services): Promise<void> {
  const { gateway } = services;
  const lifecycle = () => gateway.responses;

  app.post('/v1/completions', {
    config,
    schema: {
      tags: ['Model API: completions'],
      summary: 'Legacy text completion (adapted onto the responses route)',
      description: 'Body: model, prompt (string or array of strings), max_tokens, temperature, top_p, stop, echo, stream, stream_options.',
      body: FreeBody,
    },
    handler: async (request, reply) => {
      const signal = clientAbortSignal(reply);
      const result = await runCompletions(gateway.executeDeps, services.clock, { principal: principalOf(request), body: request.body, requestId: request.id, signal });
      if (result.kind === 'json') return result.body;
      return sendEvents(request, reply, legacyFrames(result.frames));
    },
  });

  app.get('/v1/responses/:response_id', {
    config,
    schema: {
      tags: responseTags,
      summary: 'Retrieve a stored response; stream=true replays its event stream',
      params: ResponseParams,
      querystring: Type.Object({ stream: Type.Boolean({ default: false }), starting_after: Type.Optional(Type.Integer({ minimum: -1 })) }),
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const response = await lifecycle().retrieve(principal, request.params.response_id);
      if (!request.query.stream) return response;
      return streamStoredResponse({ request, reply, services, response, startingAfter: request.query.starting_after });
    },
  });

  app.post('/v1/responses/:response_id/cancel', {
    config,
    schema: { tags: responseTags, summary: 'Cancel a background response that is still pending', params: ResponseParams },
    handler: async (request) => lifecycle().cancel(principalOf(request), request.params.response_id),
  });

  app.post('/v1/responses/:response_id/compact', {
    config,
    schema: {
      tags: responseTags,
      summary: 'Compact a stored response into a summary (a billed model call)',
      params: ResponseParams,
      body: Type.Object({ model: Type.Optional(Type.String({ minLength: 1 })), instructions: Type.Optional(Type.String()) }),
    },
    // The body is optional: none means the response's own model and the default instructions.
    preValidation: async (request) => {
      if (request.body === undefined || request.body === null) request.body = {};
    },
    handler: async (request, reply) =>
      lifecycle().compactStored({
        principal: principalOf(request),
        responseId: request.params.response_id,
        body: request.body as JsonObject,
        requestId: request.id,
        signal: clientAbortSignal(reply),
      }),
  });

  app.post('/v1/responses/compact', {
    config,
    schema: {
      tags: responseTags,
      summary: 'Compact a conversation (OpenAI form: model, input and/or previous_response_id)',
      body: Type.Object(
        {
          model: Type.String({ minLength: 1 }),
          input: Type.Optional(Type.Union([Type.String(), Type.Array(Type.Object({}, { additionalProperties: true }))])),
          previous_response_id: Type.Optional(Type.String({ minLength: 1 })),
          instructions: Type.Optional(Type.String()),
        },
        { additionalProperties: true },
      ),
    },
    handler: async (request, reply) =>
      lifecycle().compact({ principal: principalOf(request), body: request.body as JsonObject, requestId: request.id, signal: clientAbortSignal(reply) }),
  });

  for (const url of ['/v1/responses/count_tokens', '/v1/responses/input_tokens']) {
    app.post(url, {
      config,
      schema: {
        tags: responseTags,
        summary: url.endsWith('count_tokens') ? 'Estimate the input tokens of a Responses request' : 'Estimate input tokens (OpenAI form)',
        description: 'Same body as create. A local tokenizer estimate: no upstream call, not billed.',
        body: Type.Object({ model: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
      },
      handler: async (request) => lifecycle().countInputTokens(principalOf(request), request.body as JsonObject),
    });
  }
}

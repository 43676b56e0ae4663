/**
 * `/v1/responses*`: create (OpenAI Responses, streamed or not; a Responses-capable destination gets the caller's
 * body natively, any other is driven through the normalized middle; `background: true` queues it), retrieve (with
 * stream replay), cancel, compaction (the per-response form and OpenAI's form), input-token counting, delete and
 * input items. Only the bearer's own stored responses are visible; anything else is a 404.
 */
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { InboundProtocol } from '../../../gateway/protocols/contract.js';
import type { DriverDeps } from '../../../gateway/protocols/driver.js';
import { decodeResponsesRequest, type DecodedResponses } from '../../../gateway/protocols/responses/decode.js';
import type { ResponsesLifecycle } from '../../../gateway/responses/index.js';
import { closingEvents, numbered, openingEvents, TERMINAL_STATUSES } from '../../../gateway/responses/replay.js';
import type { StoredObjectsService } from '../../../gateway/stored/index.js';
import type { JsonObject } from '../../../kernel/json.js';
import { encodeSseFrame, type SseFrame } from '../../../kernel/sse.js';
import { SseWriter, bodyOf, clientAbortSignal, principalOf } from '../../call-context.js';
import type { App } from '../../types.js';
import { modelCallRoute } from '../shared/model-call.js';
import { PageQuery, gatewayRoute as config } from './schemas.js';

export interface ResponseDeps {
  driver: DriverDeps;
  protocol: InboundProtocol<DecodedResponses>;
  lifecycle: ResponsesLifecycle;
  stored: Pick<StoredObjectsService, 'deleteResponse' | 'listInputItems'>;
}

const responseTags = ['Model API: responses'];
const ResponseParams = Type.Object({ response_id: Type.String({ minLength: 1, maxLength: 200 }) });
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

/** Writes SSE frames as they come; stops (closing the source) when the client is gone. */
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
async function streamStoredResponse(options: {
  request: FastifyRequest;
  reply: FastifyReply;
  lifecycle: Pick<ResponsesLifecycle, 'waitForEnd'>;
  response: JsonObject;
  startingAfter?: number;
}): Promise<FastifyReply> {
  const { request, reply, response, startingAfter, lifecycle } = options;
  const principal = principalOf(request);
  const signal = clientAbortSignal(reply);
  async function* replay(): AsyncGenerator<SseFrame> {
    for (const event of numbered(openingEvents(response), 0, startingAfter)) yield { event: String(event.type), data: event };
    const final = TERMINAL_STATUSES.includes(String(response.status))
      ? response
      : await lifecycle.waitForEnd(principal, String(response.id), signal);
    for (const event of numbered(closingEvents(final), 2, startingAfter)) yield { event: String(event.type), data: event };
  }
  return sendEvents(request, reply, replay());
}

export function responseRoutes(app: App, deps: ResponseDeps): void {
  createRoute(app, deps);
  storedResponseRoutes(app, deps);
  compactionRoutes(app, deps);
  inputTokenRoutes(app, deps);
  storedItemRoutes(app, deps);
}

/** `POST /v1/responses`: a model call through the driver, or a queued background response. */
function createRoute(app: App, deps: ResponseDeps): void {
  modelCallRoute(app, deps.driver, {
    url: '/responses',
    config,
    schema: {
      tags: responseTags,
      summary: 'Create a model response',
      description:
        'OpenAI-compatible. `stream: true` returns server-sent events (`response.created` … `response.completed`; a failure after the stream started ends with `response.failed`). `background: true` queues the response; poll GET /v1/responses/{response_id}.',
      body: ResponsesBody,
    },
    protocol: deps.protocol,
    // `previous_response_id` is expanded first; a background create is queued and answered without a model call.
    async before(request, reply) {
      const body = bodyOf(request);
      await deps.lifecycle.prepareInput(principalOf(request), body);
      if (body.background !== true) return undefined;
      decodeResponsesRequest(body);
      const queued = await deps.lifecycle.createBackground({ principal: principalOf(request), body, requestId: request.id });
      if (body.stream !== true) return { answer: queued };
      return { answer: await streamStoredResponse({ request, reply, lifecycle: deps.lifecycle, response: queued }) };
    },
  });
}

/** Retrieve (and replay) and cancel the bearer's stored responses. */
function storedResponseRoutes(app: App, deps: ResponseDeps): void {
  app.get('/responses/:response_id', {
    config,
    schema: {
      tags: responseTags,
      summary: 'Retrieve a stored response; stream=true replays its event stream',
      params: ResponseParams,
      querystring: Type.Object({ stream: Type.Boolean({ default: false }), starting_after: Type.Optional(Type.Integer({ minimum: -1 })) }),
    },
    handler: async (request, reply) => {
      const principal = principalOf(request);
      const response = await deps.lifecycle.retrieve(principal, request.params.response_id);
      if (!request.query.stream) return response;
      return streamStoredResponse({ request, reply, lifecycle: deps.lifecycle, response, startingAfter: request.query.starting_after });
    },
  });

  app.post('/responses/:response_id/cancel', {
    config,
    schema: { tags: responseTags, summary: 'Cancel a background response that is still pending', params: ResponseParams },
    handler: async (request) => deps.lifecycle.cancel(principalOf(request), request.params.response_id),
  });
}

/** Compaction: the per-response form and OpenAI's form (each a billed model call). */
function compactionRoutes(app: App, deps: ResponseDeps): void {
  app.post('/responses/:response_id/compact', {
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
      deps.lifecycle.compactStored({
        principal: principalOf(request),
        responseId: request.params.response_id,
        body: request.body as JsonObject,
        requestId: request.id,
        signal: clientAbortSignal(reply),
      }),
  });

  app.post('/responses/compact', {
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
      deps.lifecycle.compact({
        principal: principalOf(request),
        body: request.body as JsonObject,
        requestId: request.id,
        signal: clientAbortSignal(reply),
      }),
  });
}

function inputTokenRoutes(app: App, deps: ResponseDeps): void {
  for (const url of ['/responses/count_tokens', '/responses/input_tokens']) {
    app.post(url, {
      config,
      schema: {
        tags: responseTags,
        summary: url.endsWith('count_tokens') ? 'Estimate the input tokens of a Responses request' : 'Estimate input tokens (OpenAI form)',
        description: 'Same body as create. A local tokenizer estimate: no upstream call, not billed.',
        body: Type.Object({ model: Type.String({ minLength: 1 }) }, { additionalProperties: true }),
      },
      handler: async (request) => deps.lifecycle.countInputTokens(principalOf(request), request.body as JsonObject),
    });
  }
}

/** Delete, and the input items of, the bearer's stored responses. */
function storedItemRoutes(app: App, deps: ResponseDeps): void {
  app.delete('/responses/:response_id', {
    config,
    schema: { tags: responseTags, summary: 'Delete a stored response', params: ResponseParams },
    handler: async (request) => deps.stored.deleteResponse(principalOf(request), request.params.response_id),
  });

  app.get('/responses/:response_id/input_items', {
    config,
    schema: {
      tags: responseTags,
      summary: 'List the input items of a stored response',
      params: ResponseParams,
      querystring: PageQuery('desc'),
    },
    handler: async (request) => deps.stored.listInputItems(principalOf(request), request.params.response_id, request.query),
  });
}

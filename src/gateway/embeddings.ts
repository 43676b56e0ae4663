/**
 * `POST /v1/embeddings`: an OpenAI-shaped embeddings call routed to a model declared with
 * `capabilities.embeddings` on an OpenAI-kind provider. Metered like any model call (key policies, holds, rate
 * limits) and billed by input tokens on the model's rate card; the reply is the upstream's, model relabelled.
 */
import type { Logger } from 'pino';
import type { Principal } from '../accounts/principal.js';
import type { Meter, MeteredUsage } from '../billing/meter.js';
import { AppError } from '../kernel/errors.js';
import type { CallsInFlight } from './calls-in-flight.js';
import { resolveModel, type Routing } from './execute.js';
import { invalid, isObject, type Json } from './protocols/shared/decode-helpers.js';
import { UpstreamError, type CallSignal } from './normalized/index.js';
import { countTextTokens } from './tokens.js';

export interface EmbeddingsDeps {
  routing: Routing;
  meter: Meter;
  logger: Logger;
  calls: CallsInFlight;
}

export interface EmbeddingsOptions {
  principal: Principal;
  body: Json;
  requestId: string;
  signal: CallSignal;
  host?: string;
}

/** The texts to embed (token arrays count one token each), checked as OpenAI does. */
async function inputTokens(input: unknown): Promise<number> {
  const items = Array.isArray(input) && input.length > 0 && typeof input[0] !== 'number' ? input : [input];
  if (items.length === 0) return invalid(['input'], 'must not be empty');
  let tokens = 0;
  for (const [index, item] of items.entries()) {
    if (typeof item === 'string') {
      if (item === '') invalid(['input', index], 'must not be an empty string');
      tokens += await countTextTokens(item);
    } else if (Array.isArray(item) && item.length > 0 && item.every((token) => Number.isInteger(token))) {
      tokens += item.length;
    } else {
      invalid(['input', index], 'must be a string, a list of strings, or token arrays');
    }
  }
  return tokens;
}

function checkBody(body: Json): void {
  if (typeof body.model !== 'string' || body.model === '') invalid(['model'], 'must be a model id');
  if (body.encoding_format !== undefined && body.encoding_format !== 'float' && body.encoding_format !== 'base64')
    invalid(['encoding_format'], "must be 'float' or 'base64'");
  if (body.dimensions !== undefined && (!Number.isInteger(body.dimensions) || (body.dimensions as number) < 1))
    invalid(['dimensions'], 'must be a positive integer');
}

export async function embed(deps: EmbeddingsDeps, options: EmbeddingsOptions): Promise<Json> {
  const { body, signal } = options;
  checkBody(body);
  const model = body.model as string;
  const estimated = await inputTokens(body.input);
  const destination = resolveModel(deps.routing, model);
  const adapter = deps.routing.adapterFor(destination);
  if (!destination.model.capabilities.embeddings || !adapter.embed) {
    throw new AppError(
      'BAD_REQUEST',
      `Model ${model} is not an embedding model; choose one whose capabilities list embeddings (GET /v1/models)`,
      {
        details: { param: 'model' },
      },
    );
  }
  const metered = await deps.meter.begin({
    principal: options.principal,
    requestedModel: model,
    modelId: destination.model.id,
    operation: 'embeddings',
    estimatedInputTokens: estimated,
    maxOutputTokens: 0,
    requestId: options.requestId,
    host: options.host,
  });
  const leave = deps.calls.enter();
  let usage: MeteredUsage = { inputTokens: 0, outputTokens: 0, source: 'estimated' };
  let status: 'completed' | 'failed' | 'aborted' = 'failed';
  try {
    const reply = await adapter.embed({ body: { ...body, model: destination.model.upstreamModel }, signal, requestId: options.requestId });
    const reported = isObject(reply.usage) ? reply.usage.prompt_tokens : undefined;
    usage =
      typeof reported === 'number'
        ? { inputTokens: reported, outputTokens: 0, source: 'upstream' }
        : { inputTokens: estimated, outputTokens: 0, source: 'estimated' };
    status = 'completed';
    return { ...reply, model };
  } catch (error) {
    if (signal.aborted) status = 'aborted';
    throw error instanceof UpstreamError ? error.toAppError() : error;
  } finally {
    // The answer does not wait for the settlement's commit (journaled by settle() before it returns).
    void metered
      .settle(usage, status)
      .catch((error) => deps.logger.error({ err: error, requestId: options.requestId }, 'settling an embeddings call failed'))
      .finally(leave);
  }
}

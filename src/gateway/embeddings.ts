/**
 * `POST /v1/embeddings`: an OpenAI-shaped embeddings call routed to a model declared with
 * `capabilities.embeddings` on an OpenAI-kind provider. Metered like any model call (key policies, holds, rate
 * limits) and billed by input tokens on the model's rate card; the reply is the upstream's, model relabelled. The
 * driver runs the call (protocols/driver.ts `embed`), its hold and settlement those of execute.ts (`executeWhole`).
 */
import type { Principal } from '../accounts/principal.js';
import type { MeteredUsage } from '../billing/meter.js';
import { AppError } from '../kernel/errors.js';
import { resolveModel, type Routing, type WholeCall } from './execute.js';
import { invalid, isObject, type Json } from './protocols/shared/decode-helpers.js';
import type { CallSignal } from './normalized/index.js';
import { countTextTokens } from './tokens.js';
import { modelCallTrace, tracer, type ModelCallTrace } from '../telemetry/index.js';

export interface EmbeddingsOptions {
  principal: Principal;
  body: Json;
  requestId: string;
  /** The client's own request id (its x-request-id), recorded with the call. */
  clientRequestId?: string;
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

/** The embeddings call of a request (checked, its model resolved); the driver runs it (protocols/driver.ts). */
export async function embeddingsCall(routing: Routing, options: EmbeddingsOptions): Promise<WholeCall<Json>> {
  const { body, signal } = options;
  checkBody(body);
  const model = body.model as string;
  const estimated = await inputTokens(body.input);
  const destination = resolveModel(routing, model);
  const adapter = routing.adapterFor(destination);
  if (!destination.model.capabilities.embeddings || !adapter.embed) {
    throw new AppError(
      'BAD_REQUEST',
      `Model ${model} is not an embedding model; choose one whose capabilities list embeddings (GET /v1/models)`,
      {
        details: { param: 'model' },
      },
    );
  }
  // Tracing off: one branch, no span objects.
  const traced = tracer() === null ? undefined : startTrace(options, model);
  const admission = {
    principal: options.principal,
    requestedModel: model,
    modelId: destination.model.id,
    operation: 'embeddings',
    estimatedInputTokens: estimated,
    maxOutputTokens: 0,
    requestId: options.requestId,
    clientRequestId: options.clientRequestId,
    host: options.host,
  } as const;
  const run = async () => {
    traced?.routed(destination);
    const send = { body: { ...body, model: destination.model.upstreamModel }, signal, requestId: options.requestId };
    const reply = await (traced ? traced.inUpstream(() => adapter.embed!(send)) : adapter.embed!(send));
    const reported = isObject(reply.usage) ? reply.usage.prompt_tokens : undefined;
    const usage: MeteredUsage =
      typeof reported === 'number'
        ? { inputTokens: reported, outputTokens: 0, source: 'upstream' }
        : { inputTokens: estimated, outputTokens: 0, source: 'estimated' };
    return { result: { ...reply, model } as Json, usage };
  };
  return { admission, signal, traced, run };
}

function startTrace(options: EmbeddingsOptions, model: string): ModelCallTrace | undefined {
  return modelCallTrace({
    operation: 'embeddings',
    requestedModel: model,
    requestId: options.requestId,
    customerId: options.principal.kind === 'customer' ? options.principal.customerId : undefined,
  });
}

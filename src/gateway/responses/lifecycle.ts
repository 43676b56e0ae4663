/**
 * The lifecycle of stored responses beyond create: retrieve (and replay), cancel, background mode, compaction
 * and input-token counting. The Responses protocol supplies how a create body decodes and how a background
 * create runs; everything else is here.
 */
import type { Logger } from 'pino';
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, validationError } from '../../kernel/errors.js';
import { checkCapabilities, checkToolResults } from '../checks.js';
import { resolveModel, type Routing } from '../execute.js';
import type { DriverDeps } from '../protocols/driver.js';
import type { NormalizedRequest } from '../normalized/index.js';
import type { StoredObjectsService } from '../stored/stored-objects.js';
import { countInputTokens } from '../tokens.js';
import { assertModelAllowed } from '../../billing/policy.js';
import { BackgroundResponses, type BackgroundRun } from './background.js';
import { CompactionSeal } from './compaction-seal.js';
import { compactConversation, expandCompactionItems } from './compaction.js';
import { TERMINAL_STATUSES } from '../protocols/responses/encode.js';
import type { CallSignal } from '../normalized/index.js';
import { isJsonObject as isObject, type JsonObject } from '../../kernel/json.js';

export interface ResponsesLifecycleOptions {
  /** Model ids and aliases (a background create and a count are refused as a call would be). */
  routing: Routing;
  /** Compaction's model call runs through the driver. */
  driver: DriverDeps;
  stored: StoredObjectsService;
  clock: Clock;
  logger: Logger;
  /** The service secret; compaction summaries are sealed under a key derived from it. */
  secret: string;
  /** The Responses protocol's decoder of a create body (throws 422/400 on bad input). */
  decode: (body: JsonObject) => NormalizedRequest;
  run: BackgroundRun;
  /** The Response object of a just-created background request (id, echo of the request, no output yet). */
  queuedResponse: (body: JsonObject, nowMs: number) => JsonObject;
}

export class ResponsesLifecycle {
  readonly background: BackgroundResponses;
  readonly seal: CompactionSeal;

  constructor(private readonly options: ResponsesLifecycleOptions) {
    this.seal = new CompactionSeal(options.secret);
    this.background = new BackgroundResponses({ stored: options.stored, clock: options.clock, logger: options.logger, run: options.run });
  }

  /**
   * `POST /v1/responses` with `background: true`: checks the body exactly as a foreground create would (bad
   * input is refused and nothing is stored), stores it queued and starts it; the caller polls GET (or, with
   * `stream: true`, the route follows it as a replay stream).
   */
  async createBackground(options: { principal: Principal; body: JsonObject; requestId: string }): Promise<JsonObject> {
    const { body } = options;
    const request = this.options.decode(body);
    // What a foreground create refuses before any upstream call (unknown model, missing tool result, images or
    // tools the destination cannot take) is refused here too, not accepted as queued and failed later.
    checkToolResults(request);
    checkCapabilities(resolveModel(this.options.routing, request.model), request);
    const queued = this.options.queuedResponse(body, this.options.clock.nowMs());
    return this.background.start({ principal: options.principal, body, requestId: options.requestId, queued, inputItems: body.input });
  }

  /**
   * A create body made ready for any destination: `previous_response_id` is replaced by that stored response's
   * conversation (its input items, which already carry the earlier turns, then its output), so destinations that
   * keep no server-side state see the whole history; and this service's compaction items are opened. Another
   * bearer's or an unknown previous response is a 404, as OpenAI answers.
   */
  async prepareInput(principal: Principal, body: JsonObject): Promise<void> {
    const previousId = body.previous_response_id;
    if (typeof previousId === 'string' && previousId !== '') {
      const history = await this.conversationOf(principal, previousId);
      const input = body.input === undefined || body.input === null ? [] : inputAsItems(body.input);
      body.input = [...history, ...input];
      delete body.previous_response_id;
    }
    body.input = expandCompactionItems(body.input, this.seal);
  }

  async retrieve(principal: Principal, responseId: string): Promise<JsonObject> {
    return (await this.background.current(principal, responseId)).response;
  }

  /** Polls a pending response until it reaches a terminal state (stream replay of a background response). */
  async waitForEnd(principal: Principal, responseId: string, signal: CallSignal, pollMs = 250): Promise<JsonObject> {
    for (;;) {
      const response = await this.retrieve(principal, responseId);
      if (TERMINAL_STATUSES.includes(String(response.status)) || signal.aborted) return response;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }

  cancel(principal: Principal, responseId: string): Promise<JsonObject> {
    return this.background.cancel(principal, responseId);
  }

  /** `POST /v1/responses/count_tokens` and `/input_tokens`: a tokenizer estimate, no upstream call, not billed. */
  async countInputTokens(principal: Principal, body: JsonObject): Promise<JsonObject> {
    if (typeof body.model !== 'string' || body.model === '') {
      throw validationError([{ loc: ['body', 'model'], msg: 'model is required', type: 'missing' }]);
    }
    // The key's model policy binds a count as it binds a call (an unknown model is the same 404 too).
    const destination = resolveModel(this.options.routing, body.model);
    assertModelAllowed(principal, body.model, destination.model.id);
    const prepared = { ...body, stream: false };
    await this.prepareInput(principal, prepared);
    return { object: 'response.input_tokens', input_tokens: await countInputTokens(this.options.decode(prepared)) };
  }

  /** OpenAI's form: `model` plus `input` and/or `previous_response_id`. */
  async compact(options: { principal: Principal; body: JsonObject; requestId: string; signal: CallSignal }): Promise<JsonObject> {
    const { body, principal } = options;
    if (typeof body.model !== 'string' || body.model === '') {
      throw validationError([{ loc: ['body', 'model'], msg: 'model is required', type: 'missing' }]);
    }
    if (body.conversation !== undefined && body.previous_response_id !== undefined) {
      throw new AppError('BAD_REQUEST', 'previous_response_id cannot be used together with conversation', {
        details: { param: 'previous_response_id' },
      });
    }
    const earlier = typeof body.previous_response_id === 'string' ? await this.conversationOf(principal, body.previous_response_id) : [];
    const items = [...earlier, ...inputAsItems(body.input)];
    if (items.length === 0) throw validationError([{ loc: ['body', 'input'], msg: 'give input or previous_response_id', type: 'missing' }]);
    return compactConversation(this.options.driver, this.seal, {
      principal,
      requestId: options.requestId,
      model: body.model,
      items,
      instructions: typeof body.instructions === 'string' ? body.instructions : undefined,
      signal: options.signal,
      nowMs: this.options.clock.nowMs(),
    });
  }

  /** The spec's form: compact one stored response (its input and output); `model` defaults to the response's. */
  async compactStored(options: {
    principal: Principal;
    responseId: string;
    body: JsonObject;
    requestId: string;
    signal: CallSignal;
  }): Promise<JsonObject> {
    const found = await this.options.stored.findResponse(options.principal, options.responseId);
    const model = typeof options.body.model === 'string' && options.body.model !== '' ? options.body.model : found.model;
    return compactConversation(this.options.driver, this.seal, {
      principal: options.principal,
      requestId: options.requestId,
      model,
      items: await this.conversationOf(options.principal, options.responseId),
      instructions: typeof options.body.instructions === 'string' ? options.body.instructions : undefined,
      signal: options.signal,
      nowMs: this.options.clock.nowMs(),
    });
  }

  /** A stored response's input items followed by its output items. */
  private async conversationOf(principal: Principal, responseId: string): Promise<JsonObject[]> {
    const found = await this.options.stored.findResponse(principal, responseId);
    const input = (await this.options.stored.allInputItems(responseId)).map((entry) => entry.item);
    const output = Array.isArray(found.response.output) ? found.response.output.filter(isObject) : [];
    return [...input, ...output];
  }

  close(): Promise<void> {
    return this.background.close();
  }
}

function inputAsItems(input: unknown): JsonObject[] {
  if (typeof input === 'string') return input === '' ? [] : [{ type: 'message', role: 'user', content: input }];
  if (Array.isArray(input)) return input.filter(isObject);
  if (input === undefined || input === null) return [];
  throw validationError([{ loc: ['body', 'input'], msg: 'input must be a string or a list of items', type: 'value_error' }]);
}

/**
 * Runs one Responses create call to its final `response` object (non-streaming callers and background runs).
 * Native destinations give their own response (relabelled); others are assembled by `ResponsesEncoder`
 * (`responseBuilderFor` chooses).
 */
import type { Principal } from '../../../accounts/principal.js';
import type { Clock } from '../../../kernel/clock.js';
import { isAppError } from '../../../kernel/errors.js';
import type { GatewayCall } from '../../execute.js';
import { collect, type DriverDeps } from '../driver.js';
import { upstreamError, type UpstreamError } from '../../normalized/index.js';
import type { Json } from '../shared/decode-helpers.js';
import { decodeResponsesRequest } from './decode.js';
import { responseEcho, TERMINAL_STATUSES } from './encode.js';
import { responseBuilderFor } from './stream.js';
import type { CallSignal } from '../../normalized/index.js';

/** What a call whose parts ended without a terminal event (its signal aborted mid-call) reports. */
function cutShort(): UpstreamError {
  return upstreamError({ kind: 'protocol', message: 'The model call ended before the response was complete' });
}

/**
 * Folds a finished call into the Response object; an upstream failure becomes `error` and a `failed` response (the
 * caller decides how to show it). A call that ended without a terminal state is a failure too, never a response
 * left `in_progress`. Native destinations give their own response (relabelled); others are assembled here.
 */
export async function responseFromCall(
  call: GatewayCall,
  body: Json,
  requestedModel: string,
  nowMs: number,
): Promise<{ response: Json; error?: UpstreamError }> {
  const builder = responseBuilderFor(call, requestedModel, body, nowMs);
  let error: UpstreamError | undefined;
  for await (const part of call.parts) {
    if (part.type === 'error') error = part.error;
    builder.add(part);
  }
  const response = builder.response();
  if (!error && !(response && TERMINAL_STATUSES.includes(String(response.status)))) {
    error = response ? cutShort() : upstreamError({ kind: 'protocol' });
    builder.fail(error);
  }
  return { response: builder.response()!, error };
}

export interface BackgroundRunInput {
  driver: DriverDeps;
  principal: Principal;
  body: Json;
  requestId: string;
  /** The queued response: its id and creation time are kept. */
  queued: Json;
  signal: CallSignal;
  clock: Clock;
}

/** A background create: never throws; failures before or after the upstream answered become a `failed` response. */
export async function runResponseInBackground(input: BackgroundRunInput): Promise<Json> {
  // The upstream call itself runs in the foreground: an upstream asked for `background` would answer `queued` at once.
  const { background: _background, ...foreground } = input.body;
  const body: Json = { ...foreground, stream: false };
  const keep = { id: input.queued.id, created_at: input.queued.created_at, background: true };
  try {
    const request = decodeResponsesRequest(body);
    const options = {
      principal: input.principal,
      request,
      operation: 'responses',
      requestId: input.requestId,
      signal: input.signal,
    } as const;
    const { response } = await collect(input.driver, options, (call) => responseFromCall(call, body, request.model, input.clock.nowMs()));
    return { ...response, ...keep };
  } catch (error) {
    const message = isAppError(error) && error.status < 500 ? error.message : 'The model call failed';
    return {
      object: 'response',
      status: 'failed',
      model: body.model,
      output: [],
      usage: null,
      error: { code: isAppError(error) ? error.code.toLowerCase() : 'server_error', message },
      incomplete_details: null,
      ...responseEcho(body),
      ...keep,
    };
  }
}

/**
 * Runs one Responses create call to its final `response` object (non-streaming callers and background runs).
 * Native destinations give their own response (relabelled); others are assembled by `ResponsesEncoder`.
 */
import type { Principal } from '../../../accounts/principal.js';
import { isAppError } from '../../../kernel/errors.js';
import { execute, type ExecuteDeps, type GatewayCall } from '../../execute.js';
import { TERMINAL_STATUSES } from '../../responses/replay.js';
import { upstreamError } from '../../normalized/index.js';
import { collectParts } from '../shared/collect.js';
import type { Json } from '../shared/decode-helpers.js';
import { decodeResponsesRequest } from './decode.js';
import { ResponsesEncoder, responseEcho } from './encode.js';
import { NativeResponsesRelay } from './native.js';
import type { CallSignal } from '../../normalized/index.js';

/** What a call whose parts ended without a terminal event (its signal aborted mid-call) reports. */
function cutShort(): ReturnType<typeof upstreamError> {
  return upstreamError({ kind: 'protocol', message: 'The model call ended before the response was complete' });
}

/**
 * Folds a finished call into the Response object; an upstream failure becomes `error` (the caller decides how to
 * show it). A call that ended without a terminal state is a failure too, never a response left `in_progress`.
 */
export async function responseFromCall(call: GatewayCall, body: Json, requestedModel: string): Promise<{ response: Json; error?: ReturnType<typeof upstreamError> }> {
  if (call.native) {
    const relay = new NativeResponsesRelay(requestedModel, body);
    const collected = await collectParts(call.parts);
    const response = relay.finalResponse(collected.lastNativeEvent);
    if (collected.error) return { response: response ?? relay.failedEvent(collected.error).response as Json, error: collected.error };
    if (response && TERMINAL_STATUSES.includes(String(response.status))) return { response };
    const error = response ? cutShort() : upstreamError({ kind: 'protocol' });
    return { response: relay.failedEvent(error).response as Json, error };
  }
  const encoder = new ResponsesEncoder({ model: requestedModel, body });
  let error: ReturnType<typeof upstreamError> | undefined;
  for await (const part of call.parts) {
    if (part.type === 'error') error = part.error;
    encoder.encode(part);
  }
  if (!error && !TERMINAL_STATUSES.includes(String(encoder.response().status))) {
    error = cutShort();
    encoder.fail(error);
  }
  return { response: encoder.response(), error };
}

export interface BackgroundRunInput {
  deps: ExecuteDeps;
  principal: Principal;
  body: Json;
  requestId: string;
  /** The queued response: its id and creation time are kept. */
  queued: Json;
  signal: CallSignal;
}

/** A background create: never throws; failures before or after the upstream answered become a `failed` response. */
export async function runResponseInBackground(input: BackgroundRunInput): Promise<Json> {
  // The upstream call itself runs in the foreground: an upstream asked for `background` would answer `queued` at once.
  const { background: _background, ...foreground } = input.body;
  const body: Json = { ...foreground, stream: false };
  const keep = { id: input.queued.id, created_at: input.queued.created_at, background: true };
  try {
    const request = decodeResponsesRequest(body);
    const call = await execute(input.deps, { principal: input.principal, request, operation: 'responses', requestId: input.requestId, signal: input.signal });
    const { response } = await responseFromCall(call, body, request.model);
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

/**
 * Runs a legacy completions request through execute: a JSON `text_completion`, or the legacy chunk stream.
 * The first upstream call is made before anything is committed, so refusals (402, 429, unknown model…) are
 * plain HTTP errors; a failure after the stream started is written as a legacy `{error}` chunk, then `[DONE]`.
 */
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, isAppError } from '../../kernel/errors.js';
import { execute, type ExecuteDeps, type GatewayCall } from '../execute.js';
import { mergeUsage, type FinishReason, type Usage } from '../normalized/index.js';
import { collectText } from '../responses/collect-text.js';
import {
  completionBody,
  completionChunk,
  completionStreamError,
  completionUsageChunk,
  completionsIdentity,
  decodeCompletionsRequest,
  estimatedUsage,
  legacyFinishReason,
  requestForPrompt,
  type CompletionsIdentity,
  type CompletionsRequest,
} from './openai-completions.js';
import type { CallSignal } from '../normalized/index.js';
import { type JsonObject } from '../../kernel/json.js';

/** A frame of the legacy stream: a JSON chunk, or the closing `[DONE]` marker. */
export type CompletionFrame = JsonObject | '[DONE]';

export type CompletionsResult = { kind: 'json'; body: JsonObject } | { kind: 'stream'; frames: AsyncGenerator<CompletionFrame, void, undefined> };

export interface CompletionsCall {
  principal: Principal;
  body: unknown;
  requestId: string;
  signal: CallSignal;
}

export async function runCompletions(deps: ExecuteDeps, clock: Clock, call: CompletionsCall): Promise<CompletionsResult> {
  const decoded = decodeCompletionsRequest(call.body);
  const identity = completionsIdentity(decoded.template.model, clock.nowMs());
  const start = (prompt: string): Promise<GatewayCall> =>
    execute(deps, { principal: call.principal, request: requestForPrompt(decoded, prompt), operation: 'completions', requestId: call.requestId, signal: call.signal });
  if (!decoded.template.stream) return { kind: 'json', body: await completeAll(decoded, identity, start) };
  const first = await start(decoded.prompts[0]!);
  return { kind: 'stream', frames: streamAll(decoded, identity, first, start) };
}

async function completeAll(decoded: CompletionsRequest, identity: CompletionsIdentity, start: (prompt: string) => Promise<GatewayCall>): Promise<JsonObject> {
  // Every started call is drained (and so settled) even when a sibling prompt fails.
  const results = await Promise.allSettled(
    decoded.prompts.map(async (prompt) => {
      const call = await start(prompt);
      const collected = await collectText(call.parts, prompt);
      return { ...collected, text: decoded.echo ? prompt + collected.text : collected.text };
    }),
  );
  const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
  if (failure) throw failure.reason;
  const choices = results.map((result) => (result as PromiseFulfilledResult<{ text: string; finishReason: FinishReason | undefined; usage: Usage }>).value);
  return completionBody(identity, choices, choices.map((choice) => choice.usage));
}

async function* streamAll(
  decoded: CompletionsRequest,
  identity: CompletionsIdentity,
  first: GatewayCall,
  start: (prompt: string) => Promise<GatewayCall>,
): AsyncGenerator<CompletionFrame, void, undefined> {
  const usages: Usage[] = [];
  for (const [index, prompt] of decoded.prompts.entries()) {
    let call: GatewayCall;
    try {
      call = index === 0 ? first : await start(prompt);
    } catch (error) {
      yield completionStreamError(isAppError(error) ? error : new AppError('INTERNAL', 'Internal server error', { cause: error }));
      yield '[DONE]';
      return;
    }
    let text = '';
    let finishReason: FinishReason | undefined;
    let usage: Usage | undefined;
    try {
      if (decoded.echo) yield completionChunk(identity, index, prompt, null);
      for await (const part of call.parts) {
        if (part.type === 'text-delta') {
          text += part.delta;
          yield completionChunk(identity, index, part.delta, null);
        } else if (part.type === 'finish') finishReason = part.reason;
        else if (part.type === 'usage') usage = mergeUsage(usage, part.usage);
        else if (part.type === 'error') {
          yield completionStreamError(part.error.toAppError());
          yield '[DONE]';
          return;
        }
      }
    } finally {
      // Settles the call also when the consumer left before its first part (after the echo frame).
      await call.parts.return(undefined);
    }
    usages.push(usage ?? (await estimatedUsage(prompt, text)));
    yield completionChunk(identity, index, '', legacyFinishReason(finishReason) ?? 'stop');
  }
  if (decoded.includeUsage) yield completionUsageChunk(identity, usages);
  yield '[DONE]';
}

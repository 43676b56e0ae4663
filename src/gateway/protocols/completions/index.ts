/**
 * Legacy text completions (`POST /v1/completions`) as an inbound protocol: each prompt is one call onto the same
 * normalized middle as the other protocols; a list of prompts is a batch (one choice per prompt, `index` = its
 * position). Not streamed, the prompts run side by side; streamed, one after another.
 */
import type { JsonObject } from '../../../kernel/json.js';
import type { GatewayCall } from '../../execute.js';
import { collectText } from '../shared/collect-text.js';
import type { InboundProtocol } from '../contract.js';
import { decodeCompletionsRequest, requestForPrompt, type CompletionsRequest } from './decode.js';
import { completionBody, completionsIdentity } from './encode.js';
import { CompletionsStreamEncoder } from './stream.js';

async function completePrompt(decoded: CompletionsRequest, call: GatewayCall, prompt: string) {
  try {
    const collected = await collectText(call.parts, prompt);
    return { ...collected, text: decoded.echo ? prompt + collected.text : collected.text };
  } finally {
    await call.parts.return(undefined);
  }
}

export const completionsProtocol: InboundProtocol<CompletionsRequest> = {
  operation: 'completions',
  decode: (body) => decodeCompletionsRequest(body),
  async collect(decoded, first, context) {
    // Every started call is drained (and so settled) even when a sibling prompt fails.
    const results = await Promise.allSettled(
      decoded.prompts.map(async (prompt, index) =>
        completePrompt(decoded, index === 0 ? first : await context.start(requestForPrompt(decoded, prompt)), prompt),
      ),
    );
    const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failure) throw failure.reason;
    const choices = results.map((result) => (result as PromiseFulfilledResult<Awaited<ReturnType<typeof completePrompt>>>).value);
    return completionBody(
      completionsIdentity(decoded.template.model, context.nowMs),
      choices,
      choices.map((choice) => choice.usage),
    ) as JsonObject;
  },
  stream: (decoded, _call, context) =>
    new CompletionsStreamEncoder(decoded, completionsIdentity(decoded.template.model, context.nowMs), context),
};

/**
 * `POST /v1/messages/count_tokens`: the provider's own count when it has a counter (an Anthropic-kind destination,
 * whose reply is relayed as sent), our tokenizer's estimate otherwise. Not billed; the key's model policy applies.
 */
import type { Principal } from '../../../accounts/principal.js';
import { assertModelAllowed } from '../../../billing/policy.js';
import type { Clock } from '../../../kernel/clock.js';
import { resolveModel, type Routing } from '../../execute.js';
import { UpstreamError, upstreamError, type CallSignal, type ForwardedReply } from '../../normalized/index.js';
import { countInputTokens } from '../../tokens.js';
import type { RequestHeaders } from '../contract.js';
import type { Json } from '../shared/decode-helpers.js';
import { decodeMessagesRequest } from './decode.js';

export type TokenCount = { kind: 'counted'; body: { input_tokens: number } } | { kind: 'relayed'; reply: ForwardedReply };

export async function countMessageTokens(
  routing: Routing,
  clock: Clock,
  options: { principal: Principal; body: Json; headers: RequestHeaders; signal: CallSignal },
): Promise<TokenCount> {
  const request = decodeMessagesRequest(options.body, { requireMaxTokens: false, headers: options.headers });
  const destination = resolveModel(routing, request.model);
  const { principal } = options;
  assertModelAllowed(principal, request.model, destination.model.id);
  const adapter = routing.adapterFor(destination);
  if (!adapter.countTokens) return { kind: 'counted', body: { input_tokens: await countInputTokens(request) } };
  try {
    const reply = await adapter.countTokens({ request, destination, signal: options.signal });
    if (reply.status >= 500 || reply.status === 429) {
      throw upstreamError({
        kind: 'status',
        upstreamStatus: reply.status,
        retryAfterHeader: reply.headers['retry-after'],
        nowMs: clock.nowMs(),
      });
    }
    return { kind: 'relayed', reply };
  } catch (error) {
    throw error instanceof UpstreamError ? error.toAppError() : error;
  }
}

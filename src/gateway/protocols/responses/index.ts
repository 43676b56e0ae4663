/**
 * OpenAI Responses create (`POST /v1/responses`) as an inbound protocol. A Responses-capable destination gets the
 * caller's body natively and its events are relayed; any other destination is driven through the normalized
 * middle (`responseBuilderFor` chooses, once). Background creates are queued by the route before the driver runs.
 */
import type { StoredObjects } from '../../normalized/index.js';
import type { InboundProtocol } from '../contract.js';
import { decodeResponses, type DecodedResponses } from './decode.js';
import { responseFromCall } from './run.js';
import { storeResponse } from './store.js';
import { responseBuilderFor } from './stream.js';

export function responsesProtocol(stored: StoredObjects): InboundProtocol<DecodedResponses> {
  return {
    operation: 'responses',
    decode: (body) => decodeResponses(body),
    async collect(decoded, call, context) {
      const { response, error } = await responseFromCall(call, decoded.body, decoded.request.model, context.nowMs);
      if (error) throw error.toAppError();
      return response;
    },
    stream: (decoded, call, context) => responseBuilderFor(call, decoded.request.model, decoded.body, context.nowMs),
    store: (decoded, response, context) => storeResponse(stored, decoded, response, context),
  };
}

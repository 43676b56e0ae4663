/** The Responses store hook: a finished response is kept unless the caller sent `store: false`. */
import type { StoredObjects } from '../../normalized/index.js';
import type { CallContext } from '../contract.js';
import type { Json } from '../shared/decode-helpers.js';
import { inputItemsOf, type DecodedResponses } from './decode.js';

export function storeResponse(stored: StoredObjects, decoded: DecodedResponses, response: Json, context: CallContext): Promise<void> {
  return stored.saveResponse({
    principal: context.principal,
    requestId: context.requestId,
    store: decoded.body.store !== false,
    inputItems: inputItemsOf(decoded.body.input),
    response,
  });
}

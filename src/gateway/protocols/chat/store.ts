/** The chat store hook: a finished completion is kept when the caller sent `store: true` (the store decides). */
import type { StoredObjects } from '../../normalized/index.js';
import type { CallContext } from '../contract.js';
import type { Json } from '../shared/decode-helpers.js';
import type { DecodedChat } from './decode.js';

export function storeChatCompletion(stored: StoredObjects, decoded: DecodedChat, completion: Json, context: CallContext): Promise<void> {
  return stored.saveChatCompletion({
    principal: context.principal,
    requestId: context.requestId,
    store: decoded.store,
    metadata: decoded.request.metadata,
    requestMessages: decoded.messages,
    completion,
  });
}

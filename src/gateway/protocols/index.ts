/** The four inbound protocols, built once with what their store hooks keep finished answers in. */
import type { StoredObjects } from '../normalized/index.js';
import { chatProtocol } from './chat/index.js';
import { completionsProtocol } from './completions/index.js';
import type { Decoded, InboundProtocol } from './contract.js';
import type { DecodedChat } from './chat/decode.js';
import type { CompletionsRequest } from './completions/decode.js';
import { messagesProtocol } from './messages/index.js';
import type { DecodedResponses } from './responses/decode.js';
import { responsesProtocol } from './responses/index.js';

export interface Protocols {
  chat: InboundProtocol<DecodedChat>;
  responses: InboundProtocol<DecodedResponses>;
  completions: InboundProtocol<CompletionsRequest>;
  messages: InboundProtocol<Decoded>;
}

export function createProtocols(stored: StoredObjects): Protocols {
  return { chat: chatProtocol(stored), responses: responsesProtocol(stored), completions: completionsProtocol, messages: messagesProtocol };
}

/** `POST /v1/completions`: legacy text completions (a prompt or a batch of prompts), streamed or not. */
import { Type } from '@sinclair/typebox';
import type { CompletionsRequest } from '../../../gateway/protocols/completions/decode.js';
import type { InboundProtocol } from '../../../gateway/protocols/contract.js';
import type { DriverDeps } from '../../../gateway/protocols/driver.js';
import type { App } from '../../types.js';
import { modelCallRoute } from '../shared/model-call.js';
import { gatewayRoute } from './schemas.js';

export interface CompletionDeps {
  driver: DriverDeps;
  protocol: InboundProtocol<CompletionsRequest>;
}

export function completionRoutes(app: App, deps: CompletionDeps): void {
  modelCallRoute(app, deps.driver, {
    url: '/completions',
    config: gatewayRoute,
    schema: {
      tags: ['Model API: completions'],
      summary: 'Legacy text completion (adapted onto the responses route)',
      description: 'Body: model, prompt (string or array of strings), max_tokens, temperature, top_p, stop, echo, stream, stream_options.',
      body: Type.Object({}, { additionalProperties: true }),
    },
    protocol: deps.protocol,
  });
}

/**
 * The model-API gateway surface, `/v1/*`: one encapsulated plugin whose errors answer in OpenAI's shape, with a
 * nested one for `/v1/messages*` answering in Anthropic's. One file owns each URL family; each takes only the
 * gateway services it uses.
 */
import type { GatewayServices } from '../../../gateway/index.js';
import { prefixErrorHandler } from '../../error-render.js';
import type { App } from '../../types.js';
import { chatCompletionRoutes } from './chat-completions.js';
import { completionRoutes } from './completions.js';
import { embeddingRoutes } from './embeddings.js';
import { messageRoutes } from './messages.js';
import { modelRoutes } from './models.js';
import { responseRoutes } from './responses.js';

export async function v1Routes(app: App, services: { gateway: GatewayServices }): Promise<void> {
  const { gateway } = services;
  const { driver, protocols } = gateway;
  await app.register(
    async (v1: App) => {
      v1.setErrorHandler(prefixErrorHandler(v1.errorHandler, 'openai'));
      modelRoutes(v1, { models: gateway });
      chatCompletionRoutes(v1, { driver, protocol: protocols.chat, stored: gateway.stored });
      completionRoutes(v1, { driver, protocol: protocols.completions });
      responseRoutes(v1, { driver, protocol: protocols.responses, lifecycle: gateway.responses, stored: gateway.stored });
      embeddingRoutes(v1, { embed: gateway.embed });
      await v1.register(
        async (messages: App) => {
          messages.setErrorHandler(prefixErrorHandler(messages.errorHandler, 'anthropic'));
          messageRoutes(messages, { driver, protocol: protocols.messages, countTokens: gateway.countMessageTokens });
        },
        { prefix: '/messages' },
      );
    },
    { prefix: '/v1' },
  );
}

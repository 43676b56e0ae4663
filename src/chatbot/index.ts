/** The chat-bot domain: the webhook command handler and chat-to-account linking. */
import type { AccountServices } from '../accounts/index.js';
import type { BillingServices } from '../billing/index.js';
import { Chatbot } from './bot.js';
import { ChatLinking } from './link.js';
import type { BaseDeps } from '../storage/base-deps.js';

export interface ChatbotServices {
  bot: Chatbot;
  linking: ChatLinking;
}

export function createChatbotServices(
  deps: BaseDeps,
  domains: { billing: Pick<BillingServices, 'walletSummary'>; accounts: Pick<AccountServices, 'box' | 'alerts'> },
): ChatbotServices {
  const { config, storage, clock, logger } = deps;
  const linking = new ChatLinking({
    storage,
    box: domains.accounts.box,
    clock,
    logger,
    idp: config.idp,
    serverSecret: config.secret,
    redirectUrl: config.chatbot.idpRedirectUrl ?? `${config.publicBaseUrl}/api/v1/chatbot/idp/callback`,
    publicBaseUrl: config.publicBaseUrl,
    linkTtlMs: config.chatbot.linkTtlSeconds * 1000,
  });
  const bot = new Chatbot({
    storage,
    clock,
    logger,
    config: config.chatbot,
    linking,
    wallets: domains.billing,
    alerts: domains.accounts.alerts,
  });
  return { bot, linking };
}

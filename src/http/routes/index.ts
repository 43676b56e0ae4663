/** Registers every route module. Each surface owns one module (or a folder) under `routes/`. */
import type { App } from '../types.js';
import type { Services } from '../../services.js';
import { accountRoutes } from './accounts.js';
import { adminRoutes } from './admin.js';
import { agentEventsRoutes } from './agent-events.js';
import { agentFilesRoutes } from './agent-files.js';
import { agentProjectRoutes } from './agent-projects.js';
import { agentRoutes } from './agent.js';
import { billingRoutes } from './billing.js';
import { openApiRoutes } from './openapi.js';
import { directRoutes } from './direct.js';
import { healthRoutes } from './health.js';
import { v1Routes } from './v1/index.js';
import { aliasRoutes } from './api/admin/aliases.js';
import { metricsRoutes } from './metrics.js';
import { publicRoutes } from './public.js';
import { adminMessageRoutes } from './api/admin/messages.js';
import { authRoutes } from './api/v1/auth.js';
import { adminDesktopRoutes } from './api/admin/desktop.js';
import { desktopRoutes } from './api/v1/desktop.js';
import { desktopPushRoutes } from './api/v1/desktop-push.js';
import { desktopShoutboxRoutes } from './api/v1/desktop-chat-shoutbox.js';
import { desktopChatRoutes } from './api/v1/desktop-chat.js';
import { desktopDocumentRoutes } from './api/v1/desktop-documents.js';
import { desktopCoderRoutes } from './api/v1/desktop-coder.js';
import { meRoutes } from './api/v1/me.js';
import { messageRoutes } from './api/v1/messages.js';
import { toolboxRoutes } from './api/v1/toolbox.js';
import { walletCardRoutes } from './api/v1/wallet-card.js';
import { promotionRoutes } from './api/v1/promotions.js';
import { walletCryptoRoutes } from './api/v1/wallet-crypto.js';
import { cashWalletRoutes } from './api/v1/cash-wallet.js';
import { walletTopUpRoutes } from './api/v1/wallet-topup.js';
import { walletAutoTopupRoutes } from './api/v1/wallet-auto-topup.js';
import { webRoutes } from './web.js';
import { assistantDesktopWorkspaceRoutes } from './api/v1/assistant-desktop-workspace.js';
import { chatbotRoutes } from './api/v1/chatbot.js';
import { operatorAuthRoutes } from './api/v1/auth-operator.js';
import { adminConsoleRoutes } from './api/admin/console.js';

export async function registerRoutes(app: App, services: Services): Promise<void> {
  for (const module of [
    healthRoutes,
    metricsRoutes,
    openApiRoutes,
    publicRoutes,
    accountRoutes,
    adminRoutes,
    billingRoutes,
    v1Routes,
    aliasRoutes,
    agentRoutes,
    agentProjectRoutes,
    agentEventsRoutes,
    agentFilesRoutes,
    directRoutes,
    authRoutes,
    meRoutes,
    messageRoutes,
    toolboxRoutes,
    adminMessageRoutes,
    walletCardRoutes,
    promotionRoutes,
    walletCryptoRoutes,
    cashWalletRoutes,
    walletTopUpRoutes,
    walletAutoTopupRoutes,
    desktopDocumentRoutes,
    desktopRoutes,
    desktopPushRoutes,
    desktopShoutboxRoutes,
    desktopChatRoutes,
    adminDesktopRoutes,
    operatorAuthRoutes,
    adminConsoleRoutes,
    webRoutes,
    desktopCoderRoutes,
    assistantDesktopWorkspaceRoutes,
    chatbotRoutes,
  ]) {
    await module(app, services);
  }
}

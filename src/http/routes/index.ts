/** Registers every route module. Each surface owns one module (or a folder) under `routes/`. */
import type { App } from '../types.js';
import type { Services } from '../../services.js';
import { gatewayRoutes } from './gateway.js';
import { healthRoutes } from './health.js';
import { metricsRoutes } from './metrics.js';
import { openApiRoutes } from './openapi.js';
import { webRoutes } from './web.js';
import { coreRoutes } from './api/core.js';
import { directEventRoutes } from './api/events.js';
import { modelRoutes } from './api/models.js';
import { directProjectRoutes } from './api/projects.js';
import { directRpcRoutes } from './api/rpc.js';
import { threadRoutes } from './api/threads.js';
import { turnRoutes } from './api/turns.js';
import { adminBillingRoutes } from './api/admin/billing.js';
import { adminCustomerRoutes } from './api/admin/customers.js';
import { adminDesktopRoutes } from './api/admin/desktop.js';
import { adminKeyRoutes } from './api/admin/keys.js';
import { adminMessageRoutes } from './api/admin/messages.js';
import { adminSessionRoutes } from './api/admin/session.js';
import { agentRoutes } from './api/v1/agent.js';
import { assistantDesktopWorkspaceRoutes } from './api/v1/assistant-desktop-workspace.js';
import { cliLoginRoutes } from './api/v1/auth-login.js';
import { operatorAuthRoutes } from './api/v1/auth-operator.js';
import { authRoutes } from './api/v1/auth.js';
import { billingRoutes } from './api/v1/billing.js';
import { cashWalletRoutes } from './api/v1/cash-wallet.js';
import { chatbotRoutes } from './api/v1/chatbot.js';
import { customerRoutes } from './api/v1/customer.js';
import { desktopShoutboxRoutes } from './api/v1/desktop-chat-shoutbox.js';
import { desktopChatRoutes } from './api/v1/desktop-chat.js';
import { desktopCoderRoutes } from './api/v1/desktop-coder.js';
import { desktopDocumentRoutes } from './api/v1/desktop-documents.js';
import { desktopPushRoutes } from './api/v1/desktop-push.js';
import { desktopRoutes } from './api/v1/desktop.js';
import { marketplaceRoutes } from './api/v1/marketplace.js';
import { apiKeyRoutes } from './api/v1/me-api-keys.js';
import { meRoutes } from './api/v1/me.js';
import { messageRoutes } from './api/v1/messages.js';
import { projectEventRoutes } from './api/v1/projects/events.js';
import { projectFileRoutes } from './api/v1/projects/files.js';
import { projectRoutes } from './api/v1/projects/projects.js';
import { projectRuntimeRoutes } from './api/v1/projects/runtime.js';
import { promotionRoutes } from './api/v1/promotions.js';
import { setupRoutes } from './api/v1/setup.js';
import { statusRoutes } from './api/v1/status.js';
import { toolboxRoutes } from './api/v1/toolbox.js';
import { unlimitedCodingRoutes } from './api/v1/unlimited-coding.js';
import { versionRoutes } from './api/v1/versions.js';
import { vipRoutes } from './api/v1/vip.js';
import { walletAutoTopupRoutes } from './api/v1/wallet-auto-topup.js';
import { walletCardRoutes } from './api/v1/wallet-card.js';
import { walletCryptoRoutes } from './api/v1/wallet-crypto.js';
import { walletTopUpRoutes } from './api/v1/wallet-topup.js';
import { walletRoutes } from './api/v1/wallet.js';

export async function registerRoutes(app: App, services: Services): Promise<void> {
  for (const module of [
    healthRoutes,
    metricsRoutes,
    openApiRoutes,
    statusRoutes,
    versionRoutes,
    customerRoutes,
    cliLoginRoutes,
    meRoutes,
    apiKeyRoutes,
    setupRoutes,
    adminCustomerRoutes,
    adminKeyRoutes,
    adminBillingRoutes,
    walletRoutes,
    billingRoutes,
    vipRoutes,
    unlimitedCodingRoutes,
    marketplaceRoutes,
    gatewayRoutes,
    agentRoutes,
    projectRoutes,
    projectRuntimeRoutes,
    projectEventRoutes,
    projectFileRoutes,
    modelRoutes,
    threadRoutes,
    turnRoutes,
    directProjectRoutes,
    coreRoutes,
    directEventRoutes,
    directRpcRoutes,
    authRoutes,
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
    adminSessionRoutes,
    webRoutes,
    desktopCoderRoutes,
    assistantDesktopWorkspaceRoutes,
    chatbotRoutes,
  ]) {
    await module(app, services);
  }
}

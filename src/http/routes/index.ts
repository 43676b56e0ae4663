/**
 * The composition of the HTTP surface: every route module is an encapsulated Fastify plugin, registered here with
 * only the services its deps interface names (picked from `Services`; no route module sees the whole bag or the
 * database). Route files are shaped like their URLs: `api/v1/…`, `api/…` (the direct surface), `api/admin/…`, and
 * the root-level ones (health, metrics, openapi, web).
 */
import { apiErrorHandler } from '../error-handler.js';
import type { App } from '../types.js';
import type { Services } from '../../services.js';
import { healthRoutes } from './health.js';
import { v1Routes } from './v1/index.js';
import { aliasRoutes } from './api/admin/aliases.js';
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
  await app.register(healthRoutes, { database: services.database });
  // With `metrics.listen` set the series are served by a listener of their own (metrics/server.ts).
  if (services.config.metrics.listen === undefined) await app.register(metricsRoutes, { serviceMetrics: services.serviceMetrics });
  await app.register(openApiRoutes, { identity: services.identity });
  await app.register(webRoutes);
  await v1Routes(app, { gateway: services.gateway });
  // One scope for `/api/*`: its error handler renders the service's own shape, so no handler or hook sniffs URLs.
  await app.register(async (api: App) => {
    api.setErrorHandler(apiErrorHandler);
    await registerApiRoutes(api, services);
  });
}

/** Everything under `/api`: the account, wallet, agent, desktop and operator routes, and the direct surface. */
async function registerApiRoutes(api: App, services: Services): Promise<void> {
  const { config, clock, customers, accounts, billing, payments, desktop, direct, agent, projects, projectEvents } = services;
  await api.register(statusRoutes, { platform: services.platform });
  await api.register(versionRoutes, { platform: services.platform });
  await api.register(customerRoutes, { accounts, customers, config });
  await api.register(cliLoginRoutes, { accounts, customers, config });
  await api.register(authRoutes, { accounts, config, clock });
  await api.register(operatorAuthRoutes, { accounts, config, clock });
  await api.register(meRoutes, { accounts, customers, billing, gateway: services.gateway, config });
  await api.register(apiKeyRoutes, { apiKeys: services.apiKeys, accounts, accountReports: services.accountReports });
  await api.register(setupRoutes, { accountReports: services.accountReports });
  await api.register(messageRoutes, { accounts });
  await api.register(toolboxRoutes, { accounts });
  await api.register(walletRoutes, { billing, payments, accountReports: services.accountReports });
  await api.register(billingRoutes, { billing, accountReports: services.accountReports, config });
  await api.register(walletCardRoutes, { payments });
  await api.register(walletCryptoRoutes, { payments, customers, config });
  await api.register(cashWalletRoutes, { payments });
  await api.register(walletTopUpRoutes, { payments, customers, config });
  await api.register(walletAutoTopupRoutes, { payments });
  await api.register(vipRoutes, { identity: services.identity, config });
  await api.register(unlimitedCodingRoutes, { billing, config });
  await api.register(marketplaceRoutes, { billing });
  await api.register(promotionRoutes, { promotions: services.promotions, accounts, billing, config });
  await api.register(agentRoutes, { agent });
  await api.register(projectRoutes, { projects });
  await api.register(projectRuntimeRoutes, { projects, agent });
  await api.register(projectEventRoutes, { projects, projectEvents });
  await api.register(projectFileRoutes, { projects, files: services.projectFiles, fileSizeLimitBytes: config.agent.fileSizeLimitBytes });
  await api.register(desktopRoutes, { desktop, config });
  await api.register(desktopDocumentRoutes, { desktop, config });
  await api.register(desktopPushRoutes, { desktop });
  await api.register(desktopShoutboxRoutes, { desktop });
  await api.register(desktopChatRoutes, { desktop, gateway: services.gateway, config });
  await api.register(desktopCoderRoutes, { desktop });
  await api.register(assistantDesktopWorkspaceRoutes, { objectWorkspace: services.objectWorkspace });
  await api.register(chatbotRoutes, { chatbot: services.chatbot, config });
  await api.register(modelRoutes, { direct });
  await api.register(threadRoutes, { direct, agent });
  await api.register(turnRoutes, { direct });
  await api.register(directProjectRoutes, { direct });
  await api.register(coreRoutes, { direct });
  await api.register(directEventRoutes, { direct, projectEvents });
  await api.register(directRpcRoutes, { direct, projectEvents });
  await api.register(adminCustomerRoutes, { customers, billing, managedKeys: services.managedKeys, config });
  await api.register(adminKeyRoutes, { customers, managedKeys: services.managedKeys });
  await api.register(adminBillingRoutes, { billing, config, clock });
  await api.register(adminSessionRoutes, { accounts, config });
  await api.register(adminMessageRoutes, { accounts });
  await api.register(adminDesktopRoutes, { desktop });
  await api.register(aliasRoutes, { gateway: services.gateway });
}

/**
 * The composition of the HTTP surface: every route module is an encapsulated Fastify plugin, registered here with
 * only the services its deps interface names (picked from `Services`; no route module sees the whole bag or the
 * database). A route file's folder is its URL prefix: a module under `api/v1/wallet/` is registered with
 * `{ prefix: '/api/v1/wallet' }` and declares paths relative to it (`/topup-discount`); `api/…` is the direct
 * surface, `api/admin/…` the operator routes, `r/` the share link, and the root-level files (health, metrics,
 * openapi, web, favicon) serve the rest. test/architecture.test.ts checks that every route lies under its folder.
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
import { faviconRoutes } from './favicon.js';
import { coreRoutes } from './api/core.js';
import { directEventRoutes } from './api/events.js';
import { modelRoutes } from './api/models.js';
import { directProjectRoutes } from './api/projects.js';
import { directRpcRoutes } from './api/rpc.js';
import { threadRoutes } from './api/threads.js';
import { turnRoutes } from './api/turns.js';
import { adminActivityRoutes } from './api/admin/activity.js';
import { adminBillingRoutes } from './api/admin/billing.js';
import { adminCustomerRoutes } from './api/admin/customers.js';
import { adminDesktopRoutes } from './api/admin/desktop.js';
import { adminKeyRoutes } from './api/admin/keys.js';
import { adminInviteRoutes } from './api/admin/invites.js';
import { adminMessageRoutes } from './api/admin/messages.js';
import { adminJobRoutes } from './api/admin/jobs.js';
import { adminProviderRoutes } from './api/admin/providers.js';
import { adminSessionRoutes } from './api/admin/session.js';
import { activityRoutes } from './api/v1/activity.js';
import { adminUsageRoutes } from './api/admin/usage.js';
import { agentRoutes } from './api/v1/agent.js';
import { assistantDesktopWorkspaceRoutes } from './api/v1/assistant-desktop/object-workspace.js';
import { cliLoginRoutes } from './api/v1/auth/login.js';
import { operatorAuthRoutes } from './api/v1/auth/operator-session.js';
import { authRoutes } from './api/v1/auth/index.js';
import { billingRoutes } from './api/v1/billing.js';
import { cashWalletRoutes } from './api/v1/cash-wallet/index.js';
import { chatbotRoutes } from './api/v1/chatbot/index.js';
import { customerRoutes } from './api/v1/customer.js';
import { desktopShoutboxRoutes } from './api/v1/desktop-chat/shoutbox.js';
import { desktopChatRoutes } from './api/v1/desktop-chat/index.js';
import { desktopCoderRoutes } from './api/v1/desktop/coder.js';
import { codingSessionRoutes } from './api/v1/desktop/coding-session.js';
import { assistantSyncRoutes } from './api/v1/assistant-desktop/sync.js';
import { desktopPushRoutes } from './api/v1/assistant-desktop/push.js';
import { desktopRoutes } from './api/v1/desktop/index.js';
import { marketplaceRoutes } from './api/v1/marketplace.js';
import { apiKeyRoutes } from './api/v1/me/api-keys.js';
import { meRoutes } from './api/v1/me/index.js';
import { messageRoutes } from './api/v1/messages.js';
import { projectEventRoutes } from './api/v1/projects/events.js';
import { projectFileRoutes } from './api/v1/projects/files.js';
import { projectRoutes } from './api/v1/projects/index.js';
import { projectRuntimeRoutes } from './api/v1/projects/runtime.js';
import { promotionRoutes } from './api/v1/promotions.js';
import { setupRoutes } from './api/v1/setup.js';
import { statusRoutes } from './api/status.js';
import { toolboxRoutes } from './api/v1/toolbox.js';
import { unlimitedCodingRoutes } from './api/v1/unlimited-coding.js';
import { versionRoutes } from './api/v1/versions.js';
import { vipRoutes } from './api/v1/vip.js';
import { walletAutoTopupRoutes } from './api/v1/wallet/auto-topup.js';
import { walletCardRoutes } from './api/v1/wallet/card.js';
import { walletCryptoRoutes } from './api/v1/wallet/crypto.js';
import { walletTopUpRoutes } from './api/v1/wallet/topup.js';
import { walletRoutes } from './api/v1/wallet/index.js';
import { cardWebhookRoutes } from './api/v1/card/webhook.js';
import { cryptoIpnRoutes } from './api/v1/crypto/ipn.js';
import { purchasePreferenceRoutes } from './api/v1/purchase-preferences.js';
import { adNetworkRoutes } from './api/v1/adnetwork/conversion.js';
import { referralLinkRoutes } from './r/referral-link.js';

export async function registerRoutes(app: App, services: Services): Promise<void> {
  await app.register(healthRoutes, { database: services.database });
  // With `metrics.listen` set the series are served by a listener of their own (metrics/server.ts).
  if (services.config.metrics.listen === undefined) await app.register(metricsRoutes, { serviceMetrics: services.serviceMetrics });
  await app.register(openApiRoutes, { identity: services.identity });
  await app.register(webRoutes);
  await app.register(faviconRoutes);
  // A page link, not an API call: outside the `/api` scope and its error shape.
  await app.register(referralLinkRoutes, { prefix: '/r', promotions: services.promotions, config: services.config });
  await v1Routes(app, { gateway: services.gateway });
  // One scope for `/api/*`: its error handler renders the service's own shape, so no handler or hook sniffs URLs.
  await app.register(async (api: App) => {
    api.setErrorHandler(apiErrorHandler);
    await registerAccountRoutes(api, services);
    await registerWalletRoutes(api, services);
    await registerAgentRoutes(api, services);
    await registerDesktopRoutes(api, services);
    await registerDirectRoutes(api, services);
    await registerAdminRoutes(api, services);
  });
}

/** Sign-up, sign-in, the caller's account and its keys, platform metadata (`/api/v1/…`). */
async function registerAccountRoutes(api: App, services: Services): Promise<void> {
  const { config, clock, customers, accounts, billing, accountReports } = services;
  await api.register(statusRoutes, { prefix: '/api', platform: services.platform });
  await api.register(versionRoutes, { prefix: '/api/v1', platform: services.platform });
  await api.register(customerRoutes, { prefix: '/api/v1', accounts, customers, config, referrals: services.promotions });
  await api.register(cliLoginRoutes, { prefix: '/api/v1/auth', accounts, customers, config });
  await api.register(authRoutes, { prefix: '/api/v1/auth', accounts, config, clock });
  await api.register(operatorAuthRoutes, { prefix: '/api/v1/auth', accounts, config, clock });
  await api.register(meRoutes, { prefix: '/api/v1/me', accounts, customers, billing, gateway: services.gateway, config });
  await api.register(apiKeyRoutes, { prefix: '/api/v1/me', apiKeys: services.apiKeys, accounts, accountReports });
  await api.register(setupRoutes, { prefix: '/api/v1', accountReports });
  await api.register(messageRoutes, { prefix: '/api/v1', accounts });
  await api.register(toolboxRoutes, { prefix: '/api/v1', accounts });
  await api.register(chatbotRoutes, { prefix: '/api/v1/chatbot', chatbot: services.chatbot, config });
}

/** The wallets, payments, plans, usage reports and promotions (`/api/v1/…`). */
async function registerWalletRoutes(api: App, services: Services): Promise<void> {
  const { config, customers, accounts, billing, payments, accountReports, promotions } = services;
  await api.register(walletRoutes, { prefix: '/api/v1/wallet', billing, payments, accountReports });
  await api.register(walletCardRoutes, { prefix: '/api/v1/wallet', payments });
  await api.register(walletCryptoRoutes, { prefix: '/api/v1/wallet', payments, customers, config });
  await api.register(walletTopUpRoutes, { prefix: '/api/v1/wallet', payments, customers, config });
  await api.register(walletAutoTopupRoutes, { prefix: '/api/v1/wallet', payments });
  await api.register(cashWalletRoutes, { prefix: '/api/v1/cash-wallet', payments });
  await api.register(cardWebhookRoutes, { prefix: '/api/v1/card', payments });
  await api.register(cryptoIpnRoutes, { prefix: '/api/v1/crypto', payments });
  await api.register(purchasePreferenceRoutes, { prefix: '/api/v1', payments, config });
  await api.register(billingRoutes, { prefix: '/api/v1', billing, payments, accountReports, config });
  await api.register(activityRoutes, { prefix: '/api/v1', accountReports });
  await api.register(vipRoutes, { prefix: '/api/v1', identity: services.identity, config });
  await api.register(unlimitedCodingRoutes, { prefix: '/api/v1', billing, config });
  await api.register(marketplaceRoutes, { prefix: '/api/v1', billing });
  await api.register(promotionRoutes, { prefix: '/api/v1', promotions, accounts });
  await api.register(adNetworkRoutes, { prefix: '/api/v1/adnetwork', promotions, billing, config });
}

/** Managed projects and the agent's metadata (`/api/v1/projects/…`, `/api/v1/agent/…`). */
async function registerAgentRoutes(api: App, services: Services): Promise<void> {
  const { config, agent, projects, projectEvents } = services;
  await api.register(agentRoutes, { prefix: '/api/v1', agent });
  await api.register(projectRoutes, { prefix: '/api/v1/projects', projects, agent });
  await api.register(projectRuntimeRoutes, { prefix: '/api/v1/projects', projects, agent });
  await api.register(projectEventRoutes, { prefix: '/api/v1/projects', projects, projectEvents });
  const fileSizeLimitBytes = config.agent.fileSizeLimitBytes;
  await api.register(projectFileRoutes, { prefix: '/api/v1/projects', projects, files: services.projectFiles, fileSizeLimitBytes });
}

/** What the desktop apps use (`/api/v1/desktop/…`, `/api/v1/desktop-chat/…`, `/api/v1/assistant-desktop/…`). */
async function registerDesktopRoutes(api: App, services: Services): Promise<void> {
  const { config, desktop } = services;
  await api.register(desktopRoutes, { prefix: '/api/v1/desktop', desktop, config });
  await api.register(codingSessionRoutes, { prefix: '/api/v1/desktop', desktop, config });
  await api.register(desktopCoderRoutes, { prefix: '/api/v1/desktop', desktop });
  await api.register(desktopShoutboxRoutes, { prefix: '/api/v1/desktop-chat', desktop });
  await api.register(desktopChatRoutes, { prefix: '/api/v1/desktop-chat', desktop, gateway: services.gateway, config });
  await api.register(assistantSyncRoutes, { prefix: '/api/v1/assistant-desktop', desktop, config });
  await api.register(desktopPushRoutes, { prefix: '/api/v1/assistant-desktop', desktop });
  await api.register(assistantDesktopWorkspaceRoutes, { prefix: '/api/v1/assistant-desktop', objectWorkspace: services.objectWorkspace });
}

/** The direct thread and turn surface and the JSON-RPC passthrough (`/api/…`). */
async function registerDirectRoutes(api: App, services: Services): Promise<void> {
  const { direct, agent, projectEvents } = services;
  await api.register(modelRoutes, { prefix: '/api', direct });
  await api.register(threadRoutes, { prefix: '/api', direct, agent });
  await api.register(turnRoutes, { prefix: '/api', direct });
  await api.register(directProjectRoutes, { prefix: '/api', direct });
  await api.register(coreRoutes, { prefix: '/api', direct });
  await api.register(directEventRoutes, { prefix: '/api', direct, projectEvents });
  await api.register(directRpcRoutes, { prefix: '/api', direct, projectEvents });
}

/** The operator's routes (`/api/admin/…`). */
async function registerAdminRoutes(api: App, services: Services): Promise<void> {
  const { config, clock, customers, accounts, billing, payments, desktop, managedKeys, accountReports } = services;
  const prefix = '/api/admin';
  await api.register(adminCustomerRoutes, { prefix, customers, billing, managedKeys, config, clock });
  await api.register(adminKeyRoutes, { prefix, customers, managedKeys });
  await api.register(adminBillingRoutes, { prefix, billing, payments, config, clock });
  await api.register(adminActivityRoutes, { prefix, customers, accountReports });
  await api.register(adminUsageRoutes, { prefix, billing, clock });
  await api.register(adminSessionRoutes, { prefix, accounts, config });
  await api.register(adminMessageRoutes, { prefix, accounts });
  await api.register(adminJobRoutes, { prefix, jobs: services.jobs });
  await api.register(adminDesktopRoutes, { prefix, desktop });
  await api.register(aliasRoutes, { prefix, gateway: services.gateway });
  await api.register(adminInviteRoutes, { prefix, accounts, config });
  await api.register(adminProviderRoutes, { prefix, config, billing, gateway: services.gateway });
}

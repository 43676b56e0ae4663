/** The whole database as Kysely sees it: one interface per domain, merged here. */
import type { AccountTables } from './tables/accounts.js';
import type { AgentTables } from './tables/agent.js';
import type { AgentProjectTables } from './tables/agent-projects.js';
import type { BillingTables } from './tables/billing.js';
import type { ChassisTables } from './tables/chassis.js';
import type { DesktopTables } from './tables/desktop.js';
import type { DirectTables } from './tables/direct.js';
import type { GatewayTables } from './tables/gateway.js';
import type { GatewayStoredTables } from './tables/gateway-stored.js';
import type { PaymentTables } from './tables/payments.js';
import type { PromotionTables } from './tables/promotions.js';
import type { AutoTopupTables } from './tables/auto-topup.js';
import type { DesktopCoderTables } from './tables/desktop-coder.js';
import type { ObjectWorkspaceChatbotTables } from './tables/object-workspace-chatbot.js';
import type { ScaleTables } from './tables/scale.js';
import type { TimedJobTables } from './tables/timed-jobs.js';

export interface Database
  extends
    ChassisTables,
    GatewayTables,
    BillingTables,
    AgentTables,
    AgentProjectTables,
    GatewayStoredTables,
    DirectTables,
    AccountTables,
    PaymentTables,
    PromotionTables,
    AutoTopupTables,
    DesktopTables,
    DesktopCoderTables,
    ObjectWorkspaceChatbotTables,
    ScaleTables,
    TimedJobTables {}

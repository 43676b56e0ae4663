/**
 * The JSON config file: what operators edit. Each domain owns one section file under `sections/`; this module
 * composes them into the one schema the loader validates.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AccountsSection, IdpSection, MailSection } from './sections/accounts.js';
import { AgentSection } from './sections/agent.js';
import { BillingSection } from './sections/billing.js';
import { ChatbotSection } from './sections/chatbot.js';
import { DesktopSection } from './sections/desktop.js';
import { GatewaySection } from './sections/gateway.js';
import { AdNetworkSection, PaymentsSection, PromotionsSection } from './sections/payments.js';
import { MetricsSection } from './sections/metrics.js';
import { PlatformSection } from './sections/platform.js';
import { ServerSection } from './sections/server.js';
import { ScaleOutSection } from './sections/scale-out.js';
import { EngagementSection, JobsSection } from './sections/jobs.js';
import { TracingSection } from './sections/tracing.js';
import { UsageWebhookSection } from './sections/usage-webhook.js';
import { refuseUnknownFields } from './strict.js';

/** Every nested object refuses fields it does not name (`refuseUnknownFields`), not only the top level. */
export const ConfigFileSchema = refuseUnknownFields(
  Type.Object(
    {
      $schema: Type.Optional(Type.String()),
      server: ServerSection,
      metrics: MetricsSection,
      tracing: TracingSection,
      ...GatewaySection,
      ...BillingSection,
      usageWebhook: UsageWebhookSection,
      ...PlatformSection,
      agent: AgentSection,
      accounts: AccountsSection,
      mail: MailSection,
      idp: IdpSection,
      payments: PaymentsSection,
      promotions: PromotionsSection,
      adNetwork: AdNetworkSection,
      desktop: DesktopSection,
      chatbot: ChatbotSection,
      scaleOut: ScaleOutSection,
      jobs: JobsSection,
      engagement: EngagementSection,
    },
    { additionalProperties: false },
  ),
);

export type FileConfig = Static<typeof ConfigFileSchema>;

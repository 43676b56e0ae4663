/** Toolbox (the customer's agent defaults) and customer-engagement (notification preferences). */
import { Type } from '@sinclair/typebox';
import { KNOWN_EFFORTS } from '../../../../agent/turn-input.js';
import { customerOf } from '../../../caller.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { App } from '../../../types.js';

const ToolboxSettingsBody = Type.Object(
  {
    webSearch: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('cached'), Type.Literal('disabled')])),
    reasoningEffort: Type.Optional(Type.Union(KNOWN_EFFORTS.map((effort) => Type.Literal(effort)))),
    approvalPolicy: Type.Optional(Type.Union([Type.Literal('never'), Type.Literal('on-request'), Type.Literal('untrusted')])),
  },
  { additionalProperties: false },
);

const EmailPreferences = Type.Object(
  {
    productUpdates: Type.Optional(Type.Boolean()),
    billing: Type.Optional(Type.Boolean()),
    keyAlerts: Type.Optional(Type.Boolean()),
    inboxDigest: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const InAppPreferences = Type.Object(
  { keyAlerts: Type.Optional(Type.Boolean()), announcements: Type.Optional(Type.Boolean()) },
  { additionalProperties: false },
);
const CustomerEngagementPreferencesBody = Type.Object(
  { email: Type.Optional(EmailPreferences), inApp: Type.Optional(InAppPreferences) },
  { additionalProperties: false },
);

const customerAccount = { auth: 'api', surface: 'account', caller: 'customer' } as const;

export interface ToolboxRouteDeps {
  accounts: Pick<AccountServices, 'settings'>;
}

export async function toolboxRoutes(app: App, deps: ToolboxRouteDeps): Promise<void> {
  const { settings } = deps.accounts;

  app.get(
    '/api/v1/toolbox',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Agent preferences: {settings, effective, allowed}' } },
    async (request) => settings.toolbox(customerOf(request).customerId),
  );

  app.post(
    '/api/v1/toolbox',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Updates agent preferences within what the operator allows (web search at most, approval policy at least)',
        body: ToolboxSettingsBody,
      },
    },
    async (request) => settings.setToolbox(customerOf(request).customerId, request.body),
  );

  app.get(
    '/api/v1/customer-engagement',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Notification preferences: {email:{productUpdates,billing,keyAlerts,inboxDigest}, inApp:{keyAlerts,announcements}}',
      },
    },
    async (request) => settings.engagement(customerOf(request).customerId),
  );

  app.put(
    '/api/v1/customer-engagement',
    {
      config: customerAccount,
      schema: {
        tags: ['account'],
        summary: 'Saves notification preferences (fields left out take their defaults)',
        body: CustomerEngagementPreferencesBody,
      },
    },
    async (request) => settings.setEngagement(customerOf(request).customerId, request.body),
  );
}

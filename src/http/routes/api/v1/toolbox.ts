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
  accounts: Pick<AccountServices, 'settings' | 'unsubscribe'>;
}

const UnsubscribeQuery = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) });
const PREFERENCE_WORDS: Record<string, string> = {
  billing: 'billing mail (receipts, low balance)',
  productUpdates: 'product updates',
  inboxDigest: 'the weekly digest',
  keyAlerts: 'alert mail',
};
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
const page = (title: string, body: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex"><title>${title}</title></head><body><h1>${title}</h1>${body}</body></html>`;

export async function toolboxRoutes(app: App, deps: ToolboxRouteDeps): Promise<void> {
  const { settings } = deps.accounts;

  app.get(
    '/toolbox',
    { config: customerAccount, schema: { tags: ['account'], summary: 'Agent preferences: {settings, effective, allowed}' } },
    async (request) => settings.toolbox(customerOf(request).customerId),
  );

  app.post(
    '/toolbox',
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
    '/customer-engagement',
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
    '/customer-engagement',
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

  unsubscribeRoutes(app, deps);
}

/** The one-click unsubscribe link of engagement mail: no sign-in, the signed token names customer and preference. */
function unsubscribeRoutes(app: App, deps: ToolboxRouteDeps): void {
  const { unsubscribe } = deps.accounts;
  app.get(
    '/customer-engagement/unsubscribe',
    {
      config: { auth: 'public' },
      schema: {
        tags: ['public'],
        summary:
          'Opened from a mail: checks the signed token and answers an HTML page whose button POSTs the unsubscribe; changes nothing (mail scanners prefetch links); a bad token → 422',
        querystring: UnsubscribeQuery,
      },
    },
    async (request, reply) => {
      const { preference } = unsubscribe.check(request.query.token);
      const what = escapeHtml(PREFERENCE_WORDS[preference] ?? preference);
      const action = escapeHtml(`?token=${encodeURIComponent(request.query.token)}`);
      return reply
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(
          page(
            'Unsubscribe',
            `<p>Stop ${what} from Switchyard?</p><form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`,
          ),
        );
    },
  );
  // RFC 8058 one-click: mail clients POST `List-Unsubscribe=One-Click` to the same URL.
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    scope.post(
      '/customer-engagement/unsubscribe',
      {
        config: { auth: 'public' },
        schema: {
          tags: ['public'],
          summary:
            "One-click unsubscribe (RFC 8058, the List-Unsubscribe-Post of engagement mail, and the GET page's button): turns the preference the token names off → {unsubscribed: true, preference} (an HTML page when the caller accepts text/html)",
          querystring: UnsubscribeQuery,
        },
      },
      async (request, reply) => {
        const { preference } = await unsubscribe.apply((request.query as { token: string }).token);
        // The page's button (a browser wants a page back); a mail client's one-click gets JSON.
        if (!String(request.headers.accept ?? '').includes('text/html')) return { unsubscribed: true, preference: `email.${preference}` };
        const what = escapeHtml(PREFERENCE_WORDS[preference] ?? preference);
        return reply
          .type('text/html; charset=utf-8')
          .send(
            page(
              'Unsubscribed',
              `<p>You will get no more ${what} from Switchyard. You can turn it on again in the dashboard's notification settings.</p>`,
            ),
          );
      },
    );
  });
}

/**
 * What the operator sends a customer from the console (operator bearer only): invites (`/api/admin/invites`),
 * password-set links (`/api/admin/customers/{id}/password-link`) and the mail outbox (`/api/admin/outbox`), where
 * every mail lands when no SMTP server is configured. Each link is returned too, so it can be handed over by hand.
 */
import { Type } from '@sinclair/typebox';
import type { AccountServices } from '../../../../accounts/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import { AppError } from '../../../../kernel/errors.js';
import type { App } from '../../../types.js';

const operator = { auth: 'operator', surface: 'account' } as const;
const tags = ['admin'];
const Delivery = Type.Union([Type.Literal('smtp'), Type.Literal('outbox'), Type.Literal('failed')], {
  description: 'smtp: mailed; outbox: kept in the outbox (no SMTP configured); failed: the SMTP send failed (logged).',
});
const Link = { link: Type.String(), expires_at: Type.String(), delivery: Delivery };
const InviteView = Type.Object({
  id: Type.Integer(),
  email: Type.String(),
  created_at: Type.String(),
  expires_at: Type.String(),
  used_at: Type.Union([Type.String(), Type.Null()]),
  customer_id: Type.Union([Type.Integer(), Type.Null()]),
});

export interface AdminInviteRouteDeps {
  accounts: Pick<AccountServices, 'invites' | 'readOutbox' | 'registration'>;
  config: AppConfig;
}

export async function adminInviteRoutes(app: App, deps: AdminInviteRouteDeps): Promise<void> {
  const { invites } = deps.accounts;

  app.post(
    '/invites',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Invite one email to register; mails the link (to the outbox without SMTP) and returns it',
        description: '409 when the email already has an account, or when accounts.registration is closed.',
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 254, pattern: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$' }) },
          { additionalProperties: false },
        ),
        response: { 201: Type.Object({ ...InviteView.properties, ...Link }) },
      },
    },
    async (request, reply) => {
      if (deps.accounts.registration === 'closed') {
        throw new AppError('CONFLICT', 'Registration is closed: create the customer and send a password-set link instead');
      }
      return reply.code(201).send(await invites.invite(request.body.email));
    },
  );

  app.get(
    '/invites',
    { config: operator, schema: { tags, summary: 'Invites, newest first (used ones name their account)' } },
    async () => ({ registration: deps.accounts.registration, data: await invites.list() }),
  );

  app.post(
    '/customers/:customer_id/password-link',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Send a customer a link to choose a password (valid accounts.inviteTtlHours); returns the link',
        params: Type.Object({ customer_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) }),
        response: { 201: Type.Object({ email: Type.String(), ...Link }) },
      },
    },
    async (request, reply) => reply.code(201).send(await invites.passwordSetLink(request.params.customer_id)),
  );

  app.get(
    '/outbox',
    {
      config: operator,
      schema: {
        tags,
        summary: 'Mail kept because no SMTP server is configured (mail.smtp), newest first',
        querystring: Type.Object({
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
          before_id: Type.Optional(Type.Integer({ minimum: 1 })),
          to: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
        }),
      },
    },
    async (request) => {
      const data = await deps.accounts.readOutbox({ limit: request.query.limit, beforeId: request.query.before_id, to: request.query.to });
      return {
        smtp: deps.config.mail.smtp !== undefined,
        data,
        next_before_id: data.length === request.query.limit ? data[data.length - 1]!.id : null,
      };
    },
  );
}

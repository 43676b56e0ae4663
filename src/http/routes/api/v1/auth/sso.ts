/** Redeeming a signed single-use sign-in link: `/api/v1/auth/sso` (public; 302 to an own path). */
import { Type } from '@sinclair/typebox';
import { safeReturnTo } from '../../../../../accounts/sso.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { Clock } from '../../../../../kernel/clock.js';
import type { App } from '../../../../types.js';
import { setSessionCookies } from './session-cookies.js';

const publicAccount = { auth: 'public', surface: 'account' } as const;

const SsoQuery = Type.Object({
  token: Type.Optional(Type.String({ maxLength: 1024 })),
  returnTo: Type.Optional(Type.String({ maxLength: 2048 })),
});

export interface SsoRouteDeps {
  accounts: Pick<AccountServices, 'sessions' | 'sso'>;
  config: AppConfig;
  clock: Clock;
}

export function ssoRoutes(app: App, deps: SsoRouteDeps): void {
  const { accounts, config, clock } = deps;

  app.get(
    '/sso',
    {
      config: publicAccount,
      schema: {
        tags: ['auth'],
        summary: 'Opens a dashboard session from a signed single-use link and redirects (302) to returnTo (own paths only)',
        querystring: SsoQuery,
      },
    },
    async (request, reply) => {
      const returnTo = safeReturnTo(request.query.returnTo);
      const link = request.query.token === undefined ? null : await accounts.sso.redeem(request.query.token);
      reply.header('cache-control', 'no-store');
      reply.header('referrer-policy', 'no-referrer');
      if (link === null) return reply.redirect(`/login.html?error=sso_link_invalid`, 302);
      // No password was checked: the session carries the link's policy and is not a recent sign-in.
      const session = await accounts.sessions.open(link.customerId, { authenticated: false, policy: link.policy });
      setSessionCookies(reply, session, clock.nowMs(), config.publicBaseUrl);
      return reply.redirect(returnTo, 302);
    },
  );
}

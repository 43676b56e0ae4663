/**
 * The operator console's session, `/api/admin/session*`: who is signed in, and signing out of an operator console
 * session.
 */
import { isOperatorSession } from '../../../../accounts/operator-sessions.js';
import type { AccountServices } from '../../../../accounts/index.js';
import type { AppConfig } from '../../../../config/load-config.js';
import type { App } from '../../../types.js';
import { clearOperatorCookies } from '../v1/auth/operator-session.js';

const operator = { auth: 'operator', surface: 'account' } as const;

export interface AdminSessionRouteDeps {
  accounts: Pick<AccountServices, 'operatorSessions'>;
  config: AppConfig;
}

export async function adminSessionRoutes(app: App, deps: AdminSessionRouteDeps): Promise<void> {
  const { accounts, config } = deps;

  app.get(
    '/session',
    {
      config: operator,
      schema: { tags: ['admin'], summary: 'The calling operator: {operator: true, source (static | managed), key_id, console_session}' },
    },
    async (request) => {
      const principal = request.principal!;
      return {
        operator: true,
        source: principal.kind === 'operator' ? principal.source : null,
        key_id: principal.kind === 'operator' ? principal.keyId : null,
        console_session: isOperatorSession(principal),
      };
    },
  );

  app.post(
    '/session/end',
    {
      config: operator,
      schema: { tags: ['admin'], summary: 'Ends the calling operator console session (revokes its key) and clears its cookies' },
    },
    async (request, reply) => {
      const principal = request.principal;
      const ended = isOperatorSession(principal);
      if (ended) await accounts.operatorSessions.end(principal);
      clearOperatorCookies(reply, config.publicBaseUrl);
      return { signed_out: ended };
    },
  );
}

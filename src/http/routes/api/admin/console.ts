/**
 * What the operator console reads beyond the other admin routes: who is signed in (and signing out of an
 * operator console session), and one customer with its wallets and keys.
 */
import { Type } from '@sinclair/typebox';
import { customerView } from '../../../../accounts/account-profile.js';
import { keyView } from '../../../../accounts/key-policy.js';
import { isOperatorSession } from '../../../../accounts/operator-sessions.js';
import { parsePolicy } from '../../../../accounts/principal.js';
import type { App } from '../../../types.js';
import type { Services } from '../../../../services.js';
import { walletJson } from '../../billing.js';
import { clearOperatorCookies } from '../v1/auth-operator.js';

const operator = { auth: 'operator', surface: 'account' } as const;
const CustomerParams = Type.Object({ customer_id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export async function adminConsoleRoutes(app: App, services: Services): Promise<void> {
  const { accounts, billing, customers, keys, storage, config } = services;

  app.get(
    '/api/admin/session',
    { config: operator, schema: { tags: ['admin'], summary: 'The calling operator: {operator: true, source (static | managed), key_id, console_session}' } },
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
    '/api/admin/session/end',
    { config: operator, schema: { tags: ['admin'], summary: 'Ends the calling operator console session (revokes its key) and clears its cookies' } },
    async (request, reply) => {
      const principal = request.principal;
      const ended = isOperatorSession(principal);
      if (ended) await accounts.operatorSessions.end(principal);
      clearOperatorCookies(reply, config.publicBaseUrl);
      return { signed_out: ended };
    },
  );

  app.get(
    '/api/admin/customers/:customer_id',
    {
      config: operator,
      schema: {
        tags: ['admin'],
        summary: 'One customer with its wallets and live keys: {customer, status, vip, wallet, keys:[{id, kind, role, name, prefix, last_four, policy, …}]}',
        params: CustomerParams,
      },
    },
    async (request) => {
      const customer = await customers.get(request.params.customer_id);
      const [summary, rows] = await Promise.all([billing.walletSummary(customer.id), keys.listForCustomer(storage.db, customer.id)]);
      return {
        customer: customerView({ ...customer, created_at: Number(customer.created_at) }),
        status: customer.status,
        vip: Number(customer.vip) === 1,
        wallet: walletJson(summary),
        keys: rows.map((row) => ({ ...keyView(row, parsePolicy(row.policy_json)), role: row.role })),
      };
    },
  );
}

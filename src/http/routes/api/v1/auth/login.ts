/** `POST /api/v1/auth/login`: CLI login by email or username (public); issues a wallet-linked key. */
import { Type } from '@sinclair/typebox';
import { cliConfiguration } from '../../../../../accounts/account-profile.js';
import { AppError, validationError } from '../../../../../kernel/errors.js';
import type { CustomerService } from '../../../../../accounts/customer-service.js';
import type { AccountServices } from '../../../../../accounts/index.js';
import type { AppConfig } from '../../../../../config/load-config.js';
import type { App } from '../../../../types.js';

const LoginBody = Type.Object(
  {
    email: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    username: Type.Optional(Type.String({ minLength: 1, maxLength: 254 })),
    login: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'Email or username.' })),
    password: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
);

const publicAccount = { auth: 'public', surface: 'account' } as const;
/** How long a CLI login from an address over its failure limit waits before it is answered. */
export const ADDRESS_THROTTLE_MS = 2_000;

export interface CliLoginRouteDeps {
  accounts: Pick<AccountServices, 'lockout' | 'alerts' | 'settings'>;
  customers: Pick<CustomerService, 'login'>;
  config: AppConfig;
}

export async function cliLoginRoutes(app: App, deps: CliLoginRouteDeps): Promise<void> {
  const { config, customers } = deps;

  app.post(
    '/login',
    {
      config: publicAccount,
      schema: { tags: ['accounts'], summary: 'CLI login by email or username; issues a wallet-linked key', body: LoginBody },
    },
    async (request) => {
      const { email, username, login, password } = request.body;
      const given = [email, username, login].filter((value) => value !== undefined);
      if (given.length !== 1) {
        throw validationError([{ loc: ['body', 'email'], msg: 'Give exactly one of email, username or login', type: 'value_error' }]);
      }
      // Failures count per account (429 with Retry-After over the limit) and per address: an address over its
      // limit is slowed down, never refused, so a correct password always gets in (see accounts/lockout.ts).
      const { lockout } = deps.accounts;
      const accountKey = given[0]!.includes('@') ? given[0]!.trim().toLowerCase() : given[0]!.trim();
      await lockout.checkAccount('login', accountKey);
      if (await lockout.addressOverLimit('login', request.ip)) await new Promise((resolve) => setTimeout(resolve, ADDRESS_THROTTLE_MS));
      const issued = await customers.login(given[0]!, password).catch(async (error: unknown) => {
        if (error instanceof AppError && error.code === 'UNAUTHENTICATED') await lockout.fail('login', accountKey, request.ip);
        throw error;
      });
      await lockout.succeed('login', accountKey);
      // A sign-in from a network the customer never signed in from is an alert (and an inbox entry), as for the dashboard.
      await deps.accounts.alerts
        .signInFrom(issued.customerId, request.ip)
        .catch((error: unknown) => request.log.error({ err: error }, 'recording the sign-in network failed'));
      const edgeBaseUrl = await deps.accounts.settings.edgeBaseUrl(issued.customerId);
      return { customer_id: issued.customerId, api_key: issued.key, api_key_id: issued.keyId, ...cliConfiguration(config, edgeBaseUrl) };
    },
  );
}

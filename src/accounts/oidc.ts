/**
 * Sign-up and sign-in through an OpenID Connect provider (authorization code + PKCE S256, `openid-client`).
 * `start` stores a short-lived record keyed by a hash of the random `state`, holding the sealed PKCE verifier and
 * nonce, the return path and the sign-up attribution; `complete` uses that record up (once, even on failure),
 * exchanges the code (issuer, audience, expiry, nonce and the exact redirect URI are checked by the client) and
 * signs in the customer with that verified email, or creates the account and records its attribution.
 */
import type { Logger } from 'pino';
import type { IdpConfig } from '../config/sections/accounts.js';
import type { Clock } from '../kernel/clock.js';
import type { Transaction } from 'kysely';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import type { CustomerService } from './customer-service.js';
import { OidcCallbackError, OidcRelyingParty } from './oidc-client.js';
import type { SecretBox } from './secrets.js';

export const OIDC_STATE_TTL_MS = 10 * 60_000;
/** Where a sign-up that named a plan or an amount lands: the dashboard's top-up. */
export const SIGNUP_CHECKOUT_PATH = '/dashboard.html#/money';

export interface SignupAttribution {
  referralCode?: string;
  planId?: string;
  amountUsdMicros?: number;
  source?: string;
  countryCode?: string;
  countryName?: string;
  deviceFingerprint?: string;
  mobileNumber?: string;
}

/** A failed callback: `code` goes into the error redirect (`/login.html?error=<code>`). */
export class OidcError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface OidcDeps {
  /**
   * Runs in the new account's transaction before it commits: throws (an `OidcError`) when this email may not
   * register (`accounts.registration` is closed, or invite and the email holds no live invite).
   */
  admitSignUp?: (trx: Transaction<Database>, email: string, customerId: number) => Promise<void>;
  storage: Storage;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  customers: CustomerService;
  config: IdpConfig;
  publicBaseUrl: string;
  /** Told of every account the provider sign-in created (referral attribution lives with the promotions). */
  onSignedUp?: (customerId: number, attribution: SignupAttribution) => Promise<void>;
}

export class OidcSignIn {
  private readonly party: OidcRelyingParty;

  constructor(private readonly deps: OidcDeps) {
    this.party = new OidcRelyingParty(deps.config, this.redirectUrl, deps.logger);
  }

  get enabled(): boolean {
    const { issuer, clientId } = this.deps.config;
    return issuer !== undefined && clientId !== undefined;
  }

  get redirectUrl(): string {
    return this.deps.config.redirectUrl ?? `${this.deps.publicBaseUrl}/api/v1/auth/idp/callback`;
  }

  /** The provider's authorization URL for a new sign-in. */
  async start(returnTo: string, attribution: SignupAttribution): Promise<URL> {
    const { url, state, nonce, codeVerifier: verifier } = await this.party.authorizationRequest('openid email profile');
    const now = this.deps.clock.nowMs();
    const { box } = this.deps;
    await this.deps.storage.db
      .insertInto('oidc_states')
      .values({
        state_hash: box.hash('oidc-state', state),
        nonce: box.encrypt('oidc', nonce),
        code_verifier_enc: box.encrypt('oidc', verifier),
        return_to: returnTo,
        attribution_json: JSON.stringify(attribution),
        expires_at: now + OIDC_STATE_TTL_MS,
        created_at: now,
      })
      .execute();
    return url;
  }

  /** Completes a callback; `query` is the callback's raw query string. */
  async complete(query: URLSearchParams): Promise<{ customerId: number; returnTo: string; created: boolean }> {
    const state = query.get('state');
    if (!state) throw new OidcError('idp_state_invalid', 'missing state');
    const now = this.deps.clock.nowMs();
    const { box } = this.deps;
    const record = await this.deps.storage.db
      .updateTable('oidc_states')
      .set({ used_at: now })
      .where('state_hash', '=', box.hash('oidc-state', state))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['nonce', 'code_verifier_enc', 'return_to', 'attribution_json'])
      .executeTakeFirst();
    if (!record) throw new OidcError('idp_state_invalid', 'unknown, expired or used state');
    if (query.get('error') !== null) throw new OidcError('idp_denied', `provider answered ${query.get('error')}`);
    if (!query.get('code')) throw new OidcError('idp_code_missing', 'missing code');

    const { email, name } = await this.party
      .verifiedEmail(
        query,
        { state, nonce: box.decrypt('oidc', record.nonce), codeVerifier: box.decrypt('oidc', record.code_verifier_enc) },
        'identity-provider',
      )
      .catch((error: unknown) => {
        if (!(error instanceof OidcCallbackError)) throw error;
        throw error.reason === 'callback_invalid'
          ? new OidcError('idp_callback_invalid', error.message)
          : new OidcError('idp_email_unverified', error.message);
      });

    const existing = await this.deps.storage.db
      .selectFrom('customers')
      .select(['id', 'status'])
      .where('email', '=', email)
      .executeTakeFirst();
    if (existing) {
      if (existing.status !== 'active') throw new OidcError('account_disabled', 'account disabled');
      return { customerId: Number(existing.id), returnTo: record.return_to, created: false };
    }
    const attribution = JSON.parse(record.attribution_json) as SignupAttribution;
    const created = await this.deps.customers.create({ email, name }, async (trx, customerId) => {
      await this.deps.admitSignUp?.(trx, email, customerId);
      await trx
        .insertInto('signup_attributions')
        .values({
          customer_id: customerId,
          referral_code: attribution.referralCode ?? null,
          plan_id: attribution.planId ?? null,
          amount_usd_micros: attribution.amountUsdMicros ?? null,
          source: attribution.source ?? null,
          country_code: attribution.countryCode ?? null,
          country_name: attribution.countryName ?? null,
          device_fingerprint: attribution.deviceFingerprint ?? null,
          mobile_number: attribution.mobileNumber ?? null,
          created_at: now,
        })
        .execute();
    });
    await this.deps
      .onSignedUp?.(created.customer.id, attribution)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'sign-up attribution failed'));
    // Came for a plan or an amount: the new account lands on the checkout (its default pack is the one chosen).
    const cameToBuy = attribution.planId !== undefined || attribution.amountUsdMicros !== undefined;
    return { customerId: created.customer.id, returnTo: cameToBuy ? SIGNUP_CHECKOUT_PATH : record.return_to, created: true };
  }
}

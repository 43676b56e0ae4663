/**
 * The OpenID Connect relying party both identity-provider flows use (dashboard sign-in and chat-bot linking):
 * discovery (cached, retried after a failure), an authorization request with state, nonce and a PKCE verifier,
 * and the callback's code exchange that yields a verified email. Where the state is kept is the caller's.
 */
import * as client from 'openid-client';
import type { Logger } from 'pino';
import type { IdpConfig } from '../config/sections/accounts.js';
import { normalizeEmail } from './customer-service.js';

export interface AuthorizationRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** Why a callback did not yield an email: the provider's answer did not verify, or its email is not verified. */
export class OidcCallbackError extends Error {
  constructor(readonly reason: 'callback_invalid' | 'email_unverified') {
    super(reason === 'callback_invalid' ? 'the provider answer did not verify' : 'the provider gave no verified email');
  }
}

export class OidcRelyingParty {
  private discovered: Promise<client.Configuration> | null = null;

  constructor(
    private readonly idp: IdpConfig,
    readonly redirectUrl: string,
    private readonly logger: Logger,
  ) {}

  get enabled(): boolean {
    return this.idp.issuer !== undefined && this.idp.clientId !== undefined;
  }

  private configuration(): Promise<client.Configuration> {
    const { issuer, clientId, clientSecret } = this.idp;
    this.discovered ??= client
      .discovery(
        new URL(issuer!),
        clientId!,
        { redirect_uris: [this.redirectUrl], response_types: ['code'] },
        clientSecret === undefined ? client.None() : client.ClientSecretBasic(clientSecret),
        // A plain-http issuer is only for local providers (tests, development).
        issuer!.startsWith('http://') ? { execute: [client.allowInsecureRequests] } : undefined,
      )
      .catch((error: unknown) => {
        this.discovered = null;
        throw error;
      });
    return this.discovered;
  }

  /** A fresh authorization request; the caller stores state, nonce and verifier before sending the browser away. */
  async authorizationRequest(scope: string): Promise<AuthorizationRequest> {
    const configuration = await this.configuration();
    const state = client.randomState();
    const nonce = client.randomNonce();
    const codeVerifier = client.randomPKCECodeVerifier();
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUrl,
      scope,
      state,
      nonce,
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, state, nonce, codeVerifier };
  }

  /** Exchanges the callback's code (state, nonce and PKCE checked): the provider's verified email and name. */
  async verifiedEmail(
    query: URLSearchParams,
    expected: { state: string; nonce: string; codeVerifier: string },
    what: string,
  ): Promise<{ email: string; name: string | null }> {
    const configuration = await this.configuration();
    const callbackUrl = new URL(this.redirectUrl);
    callbackUrl.search = query.toString();
    let claims: client.IDToken | undefined;
    try {
      const tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedNonce: expected.nonce,
        expectedState: expected.state,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      this.logger.warn({ err: { message: (error as Error).message, code: (error as { code?: string }).code } }, `${what} callback refused`);
      throw new OidcCallbackError('callback_invalid');
    }
    const email = typeof claims?.email === 'string' ? normalizeEmail(claims.email) : undefined;
    if (!email || claims?.email_verified !== true) throw new OidcCallbackError('email_unverified');
    return { email, name: typeof claims?.name === 'string' ? claims.name.slice(0, 200) : null };
  }
}

/**
 * Linking a bot chat to a customer through the identity provider of the accounts (`config.idp`, authorization
 * code + PKCE S256 with `openid-client`, as the accounts' own sign-in does).
 *
 * The bot hands a chat a signed, expiring link (`chat_id`, `expires`, `sig` = HMAC of both under a key derived
 * from the server secret), so only a chat the bot talked to can be linked, and only by whoever holds that link.
 * `start` stores a state record bound to the chat id (keyed hash of the random state; sealed nonce and PKCE
 * verifier); `complete` uses it up once (a replayed or expired state is refused before any exchange), checks
 * the provider's answer and links the chat to the active customer with that verified email. No account is
 * created here: linking needs an existing account.
 *
 * Without an identity provider (or instead of it) the dashboard issues a one-time code (`/link <code>` in the
 * chat, valid 10 minutes, stored as a keyed hash, used once) that links the chat to the signed-in account.
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';
import type { Logger } from 'pino';
import { OidcCallbackError, OidcRelyingParty } from '../accounts/oidc-client.js';
import type { SecretBox } from '../accounts/secrets.js';
import type { IdpConfig } from '../config/sections/accounts.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { randomBase62 } from '../kernel/ids.js';

/** How long a one-time link code from the dashboard is valid. */
export const CHAT_LINK_CODE_TTL_MS = 10 * 60_000;
export const CHAT_LINK_CODE_PATTERN = /^[A-Za-z0-9]{10}$/;

export const CHAT_LINK_STATE_TTL_MS = 10 * 60_000;
export const CHAT_ID_PATTERN = '^-?[0-9]{1,20}$';

export class ChatLinkError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export interface ChatLinkingDeps {
  storage: Storage;
  box: SecretBox;
  clock: Clock;
  logger: Logger;
  idp: IdpConfig;
  serverSecret: string;
  redirectUrl: string;
  publicBaseUrl: string;
  linkTtlMs: number;
}

export class ChatLinking {
  private readonly party: OidcRelyingParty;
  private readonly linkKey: Buffer;

  constructor(private readonly deps: ChatLinkingDeps) {
    this.linkKey = Buffer.from(hkdfSync('sha256', deps.serverSecret, 'switchyard-chatbot', 'chat-link', 32));
    this.party = new OidcRelyingParty(deps.idp, deps.redirectUrl, deps.logger);
  }

  get enabled(): boolean {
    return this.deps.idp.issuer !== undefined && this.deps.idp.clientId !== undefined;
  }

  private signature(chatId: string, expires: number): string {
    return createHmac('sha256', this.linkKey).update(`${chatId}.${expires}`).digest('base64url');
  }

  /** The link a chat opens to connect an account (valid for the configured time). */
  linkFor(chatId: string): string {
    const expires = Math.floor((this.deps.clock.nowMs() + this.deps.linkTtlMs) / 1000);
    const query = new URLSearchParams({ chat_id: chatId, expires: String(expires), sig: this.signature(chatId, expires) });
    return `${this.deps.publicBaseUrl}/api/v1/chatbot/idp/start?${query}`;
  }

  private checkLink(chatId: string, expires: number, sig: string): void {
    const expected = Buffer.from(this.signature(chatId, expires));
    const given = Buffer.from(sig);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      throw new ChatLinkError('link_invalid', 'the link is not valid for this chat');
    if (expires * 1000 <= this.deps.clock.nowMs())
      throw new ChatLinkError('link_expired', 'the link has expired; ask the bot for a new one');
  }

  /** Checks the signed link and returns the provider's authorization URL, the state bound to `chatId`. */
  async start(chatId: string, expires: number, sig: string): Promise<URL> {
    this.checkLink(chatId, expires, sig);
    const { url, state, nonce, codeVerifier: verifier } = await this.party.authorizationRequest('openid email');
    const now = this.deps.clock.nowMs();
    const { box } = this.deps;
    await this.deps.storage.db
      .insertInto('chatbot_link_states')
      .values({
        state_hash: box.hash('oidc-state', `chatbot:${state}`),
        chat_id: chatId,
        nonce_enc: box.encrypt('oidc', nonce),
        code_verifier_enc: box.encrypt('oidc', verifier),
        expires_at: now + CHAT_LINK_STATE_TTL_MS,
        created_at: now,
      })
      .execute();
    return url;
  }

  /** Completes a callback (raw query string): links the state's chat to the signed-in customer. */
  async complete(query: URLSearchParams): Promise<{ chatId: string; customerId: number; email: string }> {
    const state = query.get('state');
    if (!state) throw new ChatLinkError('state_invalid', 'missing state');
    const now = this.deps.clock.nowMs();
    const { box, storage } = this.deps;
    const record = await storage.db
      .updateTable('chatbot_link_states')
      .set({ used_at: now })
      .where('state_hash', '=', box.hash('oidc-state', `chatbot:${state}`))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning(['chat_id', 'nonce_enc', 'code_verifier_enc'])
      .executeTakeFirst();
    if (!record) throw new ChatLinkError('state_invalid', 'unknown, expired or used state');
    if (query.get('error') !== null) throw new ChatLinkError('idp_denied', 'the provider refused the sign-in');
    if (!query.get('code')) throw new ChatLinkError('code_missing', 'missing code');

    const { email } = await this.party
      .verifiedEmail(
        query,
        { state, nonce: box.decrypt('oidc', record.nonce_enc), codeVerifier: box.decrypt('oidc', record.code_verifier_enc) },
        'chat-link',
      )
      .catch((error: unknown) => {
        if (!(error instanceof OidcCallbackError)) throw error;
        throw new ChatLinkError(error.reason, error.message);
      });
    const customer = await storage.db.selectFrom('customers').select(['id', 'status']).where('email', '=', email).executeTakeFirst();
    if (!customer || customer.status !== 'active') throw new ChatLinkError('no_account', 'no active account has that email');
    const customerId = Number(customer.id);
    await storage.db
      .insertInto('chatbot_links')
      .values({ chat_id: record.chat_id, customer_id: customerId, linked_at: now })
      .onConflict((conflict) => conflict.column('chat_id').doUpdateSet({ customer_id: customerId, linked_at: now }))
      .execute();
    return { chatId: record.chat_id, customerId, email };
  }

  /** A one-time code the signed-in customer sends to the bot as `/link <code>`. */
  async issueCode(customerId: number): Promise<{ code: string; expiresAt: number }> {
    const code = randomBase62(10);
    const now = this.deps.clock.nowMs();
    const expiresAt = now + CHAT_LINK_CODE_TTL_MS;
    await this.deps.storage.db
      .insertInto('chatbot_link_codes')
      .values({
        code_hash: this.deps.box.hash('chatbot-code', code),
        customer_id: customerId,
        expires_at: expiresAt,
        used_at: null,
        created_at: now,
      })
      .execute();
    return { code, expiresAt };
  }

  /** Uses a code up (once, unexpired) and links the chat to its account; null for an unknown, used or expired code. */
  async redeemCode(chatId: string, code: string): Promise<number | null> {
    if (!CHAT_LINK_CODE_PATTERN.test(code)) return null;
    const now = this.deps.clock.nowMs();
    const { storage } = this.deps;
    const used = await storage.db
      .updateTable('chatbot_link_codes')
      .set({ used_at: now })
      .where('code_hash', '=', this.deps.box.hash('chatbot-code', code))
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .returning('customer_id')
      .executeTakeFirst();
    if (!used) return null;
    const customer = await storage.db.selectFrom('customers').select('status').where('id', '=', used.customer_id).executeTakeFirst();
    if (customer?.status !== 'active') return null;
    const customerId = Number(used.customer_id);
    await storage.db
      .insertInto('chatbot_links')
      .values({ chat_id: chatId, customer_id: customerId, linked_at: now })
      .onConflict((conflict) => conflict.column('chat_id').doUpdateSet({ customer_id: customerId, linked_at: now }))
      .execute();
    return customerId;
  }
}

/**
 * The one-time share credit: claimable once the customer's share link was opened by someone else. Visits count
 * per network (/24, /64) and per browser (its visitor cookie), never per exact address, and only keyed hashes are
 * stored: the owner's own networks and browser (seen when they look at or claim the credit) are not "someone else".
 */
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import { addressPrefix } from '../accounts/address-prefix.js';
import type { Wallet } from '../billing/wallet.js';
import type { PromotionsConfig } from '../config/sections/payments.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import { moneyJson, type MoneyJson } from '../kernel/money.js';
import type { Database } from '../storage/schema.js';
import { grantOnce } from './grants.js';
import { notOffered } from './not-offered.js';
import { customerOfCode, referralCodeOf } from './referral.js';

export interface VisitInfo {
  address: string;
  userAgent: string;
  /** The browser's visitor cookie, when it has one. */
  browser?: string;
}

export interface ShareCreditStatus {
  enabled: boolean;
  amount: MoneyJson;
  claimed: boolean;
  claimed_at: string | null;
  share_link: string;
  visits_by_others: number;
  claimable: boolean;
  requirement: string;
}

export interface ShareCreditClaim {
  claimed: true;
  amount: MoneyJson;
}

export interface ShareCreditDeps {
  db: Kysely<Database>;
  wallet: Wallet;
  clock: Clock;
  config: Pick<PromotionsConfig, 'shareCredit'>;
  /** The key of the stored network and browser hashes. */
  secret: string;
  /** The public share link of a referral code. */
  shareLink: (code: string) => string;
}

export class ShareCredit {
  constructor(private readonly deps: ShareCreditDeps) {}

  async status(customerId: number, caller: VisitInfo): Promise<ShareCreditStatus> {
    const { shareCredit } = this.deps.config;
    await this.rememberAddress(customerId, caller);
    const code = await referralCodeOf(this.deps.db, customerId, this.deps.clock.nowMs());
    const claimed = await this.deps.db
      .selectFrom('promotion_grants')
      .select('created_at')
      .where('customer_id', '=', customerId)
      .where('promotion', '=', 'share_credit')
      .where('grant_key', '=', 'once')
      .executeTakeFirst();
    const visits = await this.visitsByOthers(customerId, code);
    return {
      enabled: shareCredit.enabled,
      amount: moneyJson(shareCredit.amountMicros),
      claimed: claimed !== undefined,
      claimed_at: claimed ? new Date(Number(claimed.created_at)).toISOString() : null,
      share_link: this.deps.shareLink(code),
      visits_by_others: visits,
      claimable: !claimed && visits > 0 && shareCredit.enabled,
      requirement:
        'Share your link; the credit can be claimed once someone else has opened it, from another network and browser than yours.',
    };
  }

  /** The credit, once (409 saying what is missing when the link was not opened by someone else, or when claimed). */
  async claim(customerId: number, caller: VisitInfo): Promise<ShareCreditClaim> {
    const { db, wallet, clock, config } = this.deps;
    if (!config.shareCredit.enabled) throw notOffered('The share credit');
    await this.rememberAddress(customerId, caller);
    const code = await referralCodeOf(db, customerId, clock.nowMs());
    const visits = await this.visitsByOthers(customerId, code);
    if (visits === 0) {
      throw new AppError('CONFLICT', 'Your share link has not been opened by anyone else yet', {
        details: { missing: 'share_link_visit', share_link: this.deps.shareLink(code), visits_by_others: 0 },
      });
    }
    const amount = config.shareCredit.amountMicros;
    const granted = await db.transaction().execute((trx) =>
      grantOnce(trx, wallet, {
        customerId,
        promotion: 'share_credit',
        grantKey: 'once',
        amountMicros: amount,
        details: { visits },
        nowMs: clock.nowMs(),
      }),
    );
    if (!granted) throw new AppError('CONFLICT', 'The share credit was already claimed', { details: { missing: null, claimed: true } });
    return { claimed: true, amount: moneyJson(amount) };
  }

  /** Records a visit of a share link; returns where to send the visitor. */
  async recordVisit(code: string, visitor: VisitInfo): Promise<string> {
    const { landingUrl } = this.deps.config.shareCredit;
    // A path stays a path (this service, whatever host the visitor used); a full URL is another site.
    const onThisService = landingUrl.startsWith('/');
    const landing = new URL(landingUrl, 'http://this-service.invalid');
    const location = () => (onThisService ? `${landing.pathname}${landing.search}${landing.hash}` : landing.toString());
    const owner = await customerOfCode(this.deps.db, code);
    if (owner === null) return location();
    // One row per browser (without a cookie: per network); the claim counts distinct networks.
    await this.deps.db
      .insertInto('share_visits')
      .values({
        code,
        visitor_hash: visitor.browser === undefined ? this.networkHash(visitor.address) : this.browserHash(visitor.browser),
        address_hash: this.networkHash(visitor.address),
        created_at: this.deps.clock.nowMs(),
      })
      .onConflict((conflict) => conflict.columns(['code', 'visitor_hash']).doNothing())
      .execute();
    landing.searchParams.set('ref', code);
    return location();
  }

  private keyed(label: string, value: string): string {
    return createHmac('sha256', this.deps.secret).update(`${label}\n${value}`).digest('hex');
  }

  private networkHash(address: string): string {
    return this.keyed('address', addressPrefix(address));
  }

  private browserHash(browser: string): string {
    return this.keyed('browser', browser);
  }

  /** The owner's own network and browser, so their own visits never count. */
  private async rememberAddress(customerId: number, caller: VisitInfo): Promise<void> {
    const hashes = [this.networkHash(caller.address), ...(caller.browser === undefined ? [] : [this.browserHash(caller.browser)])];
    for (const hash of hashes) {
      await this.deps.db
        .insertInto('customer_addresses')
        .values({ customer_id: customerId, address_hash: hash, created_at: this.deps.clock.nowMs() })
        .onConflict((conflict) => conflict.columns(['customer_id', 'address_hash']).doNothing())
        .execute();
    }
  }

  /** Distinct networks that opened the link from a browser that is not the owner's, outside the owner's networks. */
  private async visitsByOthers(customerId: number, code: string): Promise<number> {
    const own = this.deps.db.selectFrom('customer_addresses').select('address_hash').where('customer_id', '=', customerId);
    const rows = await this.deps.db
      .selectFrom('share_visits')
      .select('address_hash')
      .distinct()
      .where('code', '=', code)
      .where('address_hash', 'not in', own)
      .where('visitor_hash', 'not in', own)
      .execute();
    return rows.length;
  }
}

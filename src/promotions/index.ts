/**
 * Promotions, each grant a ledger transfer from the promotions account recorded with a key that makes it happen
 * at most once: the daily check-in (`checkin.ts`), the spin wheel (`spin-wheel.ts`), the one-time share credit
 * (`share-credit.ts`), referral codes and earnings (`referral.ts`, `referral-club.ts`), the raffle (`raffle.ts`)
 * and ad-network conversions (`ad-network.ts`). Paid and refunded top-ups reach them through `paymentEvents`.
 */
import type { BillingServices } from '../billing/index.js';
import { paymentEventsOf, type PaymentEvents } from '../billing/payments/ports.js';
import { AdNetwork } from './ad-network.js';
import { DailyCheckin, type CheckinClaim, type CheckinStatus } from './checkin.js';
import { Raffles, raffleEntriesOfPayments } from './raffle.js';
import { attributeReferral, ReferralEarnings } from './referral.js';
import { ReferralClub, type ReferralStatus } from './referral-club.js';
import { ShareCredit, type ShareCreditClaim, type ShareCreditStatus, type VisitInfo } from './share-credit.js';
import { SpinWheel, type SpinResult, type SpinWheelStatus } from './spin-wheel.js';
import type { AppConfig } from '../config/load-config.js';
import type { BaseDeps } from '../storage/base-deps.js';
import type { IdentityDeps } from '../accounts/deps.js';

/** The part of the configuration promotions read: their own section, the ad network, the link base and the hash key. */
export type PromotionConfig = Pick<AppConfig, 'promotions' | 'adNetwork' | 'publicBaseUrl' | 'secret'>;

/** What this domain takes from the composition root. */
export type PromotionDeps = Omit<BaseDeps, 'config'> & { config: PromotionConfig } & Pick<IdentityDeps, 'customers'>;

export { attributeReferral, type VisitInfo };

export interface PromotionServices {
  raffle: Raffles;
  adNetwork: AdNetwork;
  /** Given to payments: referral earnings and raffle entries of paid top-ups, taken back on refunds. */
  paymentEvents: PaymentEvents;
  checkinStatus(customerId: number): Promise<CheckinStatus>;
  claimCheckin(customerId: number): Promise<CheckinClaim>;
  spinStatus(customerId: number): Promise<SpinWheelStatus>;
  spin(customerId: number): Promise<SpinResult>;
  shareCreditStatus(customerId: number, caller: VisitInfo): Promise<ShareCreditStatus>;
  claimShareCredit(customerId: number, caller: VisitInfo): Promise<ShareCreditClaim>;
  /** Records a visit of a share link; returns where to send the visitor. */
  recordShareVisit(code: string, visitor: VisitInfo): Promise<string>;
  referralStatus(customerId: number): Promise<ReferralStatus>;
  /** Sign-up attribution: the new customer came with `referralCode` (unknown, own or repeated codes change nothing). */
  attributeReferral(customerId: number, referralCode: string): Promise<number | null>;
  raffleStatus(customerId: number): ReturnType<Raffles['status']>;
}

export interface PromotionOthers {
  billing: Pick<BillingServices, 'wallet'>;
  /** Schedules a newly opened raffle's draw (the job runner's `raffle.draw`). */
  scheduleRaffleDraw?: ConstructorParameters<typeof Raffles>[3];
}

export function createPromotionServices(deps: PromotionDeps, others: PromotionOthers): PromotionServices {
  const { config, storage, clock } = deps;
  const { db } = storage;
  const { wallet } = others.billing;
  const promotions = config.promotions;
  const shareLink = (code: string) => `${config.publicBaseUrl.replace(/\/+$/, '')}/r/${code}`;
  const raffle = new Raffles(db, wallet, () => promotions.raffle, others.scheduleRaffleDraw);
  const earnings = new ReferralEarnings(
    wallet,
    () => promotions.referral.shareBasisPoints,
    () => clock.nowMs(),
  );
  const checkin = new DailyCheckin({ db, wallet, clock, raffle, config: promotions });
  const spinWheel = new SpinWheel({ db, wallet, clock, config: promotions });
  const shareCredit = new ShareCredit({ db, wallet, clock, config: promotions, secret: config.secret, shareLink });
  const referralClub = new ReferralClub({ db, wallet, clock, config: promotions, shareLink });
  return {
    raffle,
    adNetwork: new AdNetwork(db, config.adNetwork, clock),
    paymentEvents: paymentEventsOf(
      earnings,
      raffleEntriesOfPayments(raffle, () => promotions.raffle.entriesPerPaidTopUp, clock),
    ),
    checkinStatus: (customerId) => checkin.status(customerId),
    claimCheckin: (customerId) => checkin.claim(customerId),
    spinStatus: (customerId) => spinWheel.status(customerId),
    spin: (customerId) => spinWheel.spin(customerId),
    shareCreditStatus: (customerId, caller) => shareCredit.status(customerId, caller),
    claimShareCredit: (customerId, caller) => shareCredit.claim(customerId, caller),
    recordShareVisit: (code, visitor) => shareCredit.recordVisit(code, visitor),
    referralStatus: (customerId) => referralClub.status(customerId),
    attributeReferral: (customerId, referralCode) => attributeReferral(db, customerId, referralCode, clock.nowMs()),
    raffleStatus: (customerId) => raffle.status(customerId, clock.nowMs()),
  };
}

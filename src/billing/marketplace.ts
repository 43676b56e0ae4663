/**
 * Marketplace buyers: the licence key is verified with the configured licence provider over HTTP (outside any
 * transaction), then the buyer account is created with its token-wallet credit in one transaction that also
 * records the licence as used, so a licence grants at most once even under concurrent claims.
 */
import { createHmac } from 'node:crypto';
import type { CustomerService, CreatedCustomer } from '../accounts/customer-service.js';
import { normalizeEmail } from '../accounts/customer-service.js';
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import type { Storage } from '../storage/database.js';
import type { Wallet } from './wallet.js';

export interface MarketplaceClaim {
  email: string;
  licenseKey: string;
  password?: string;
  name?: string | null;
}

interface VerifyResponse {
  success?: boolean;
  purchase?: { email?: string; refunded?: boolean; chargebacked?: boolean };
}

export class Marketplace {
  constructor(
    private readonly config: AppConfig,
    private readonly storage: Storage,
    private readonly customers: CustomerService,
    private readonly wallet: Wallet,
    private readonly clock: Clock,
  ) {}

  private licenceHash(licenseKey: string): string {
    return createHmac('sha256', this.config.secret).update(`marketplace-licence\n${licenseKey.trim()}`).digest('hex');
  }

  private async verify(email: string, licenseKey: string): Promise<void> {
    const { providerUrl, secret, productId, timeoutMs } = this.config.marketplace;
    if (!providerUrl) throw new AppError('NOT_FOUND', 'Marketplace registration is not configured');
    let response: Response;
    try {
      response = await fetch(`${providerUrl.replace(/\/+$/, '')}/licenses/verify`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(secret ? { authorization: `Bearer ${secret}` } : {}) },
        body: JSON.stringify({ product_id: productId, license_key: licenseKey }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new AppError('UPSTREAM_UNAVAILABLE', 'The marketplace licence provider is unreachable', { cause: error });
    }
    const body = (await response.json().catch(() => ({}))) as VerifyResponse;
    if (response.status >= 500) throw new AppError('UPSTREAM_FAILED', 'The marketplace licence provider failed');
    const purchase = body.purchase;
    if (!response.ok || body.success !== true || !purchase) throw new AppError('FORBIDDEN', 'The licence key is not valid');
    if (purchase.refunded || purchase.chargebacked) throw new AppError('FORBIDDEN', 'The licence was refunded');
    if (normalizeEmail(purchase.email ?? '') !== email) throw new AppError('FORBIDDEN', 'The licence key belongs to another email address');
  }

  private async assertUnused(hash: string): Promise<void> {
    const used = await this.storage.db
      .selectFrom('marketplace_licences')
      .select('customer_id')
      .where('licence_hash', '=', hash)
      .executeTakeFirst();
    if (used) throw new AppError('CONFLICT', 'This licence key has already been used');
  }

  async register(claim: MarketplaceClaim): Promise<{ created: CreatedCustomer; creditMicros: number }> {
    const email = normalizeEmail(claim.email);
    const hash = this.licenceHash(claim.licenseKey);
    await this.assertUnused(hash);
    await this.verify(email, claim.licenseKey);
    const creditMicros = this.config.billing.marketplaceCreditMicros;
    try {
      const created = await this.customers.create(
        { email, password: claim.password, name: claim.name ?? null },
        async (trx, customerId) => {
          await trx
            .insertInto('marketplace_licences')
            .values({ licence_hash: hash, customer_id: customerId, email, claimed_at: this.clock.nowMs() })
            .execute();
          await this.wallet.creditIn(trx, {
            customerId,
            amountMicros: creditMicros,
            system: 'promotions',
            kind: 'marketplace_credit',
            memo: 'marketplace licence',
            reference: `licence:${hash.slice(0, 16)}`,
          });
        },
      );
      return { created, creditMicros };
    } catch (error) {
      // A concurrent claim of the same licence surfaces as a unique violation; name the real reason.
      if (error instanceof AppError && error.code === 'CONFLICT') await this.assertUnused(hash);
      throw error;
    }
  }
}

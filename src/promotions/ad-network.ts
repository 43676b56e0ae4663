/**
 * Server-side conversion events forwarded to the ad network (Reddit Conversions API shape:
 * `POST {apiBaseUrl}/api/v2.0/conversions/events/{accountId}` with the conversion access token as bearer).
 * Each event id is forwarded once (concurrent duplicates included); a failed forward frees the id for a retry.
 * Nothing about the customer is sent beyond the event itself and the ad click id.
 */
import type { Kysely } from 'kysely';
import type { AdNetworkConfig } from '../config/sections/payments.js';
import type { Clock } from '../kernel/clock.js';
import { AppError } from '../kernel/errors.js';
import type { Database } from '../storage/schema.js';

export interface ConversionInput {
  event_id: string;
  event_type: 'PageVisit' | 'ViewContent' | 'Search' | 'AddToCart' | 'AddToWishlist' | 'Purchase' | 'Lead' | 'SignUp';
  event_at?: string;
  click_id?: string;
  value?: number;
  currency?: string;
  item_count?: number;
}

export class AdNetwork {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly config: AdNetworkConfig,
    private readonly clock: Clock,
  ) {}

  async forward(input: ConversionInput): Promise<{ duplicate: boolean }> {
    if (!this.config.enabled) throw new AppError('NOT_FOUND', 'Conversion forwarding is not enabled on this service');
    const nowMs = this.clock.nowMs();
    const claimed = await this.db
      .insertInto('ad_conversions')
      .values({ event_id: input.event_id, event_type: input.event_type, status: 'sending', created_at: nowMs })
      .onConflict((conflict) => conflict.column('event_id').doNothing())
      .executeTakeFirst();
    if (Number(claimed.numInsertedOrUpdatedRows ?? 0) !== 1) return { duplicate: true };
    const metadata: Record<string, unknown> = { conversion_id: input.event_id };
    if (input.value !== undefined) metadata.value_decimal = input.value;
    if (input.currency !== undefined) metadata.currency = input.currency;
    if (input.item_count !== undefined) metadata.item_count = input.item_count;
    const event: Record<string, unknown> = {
      event_at: input.event_at ?? new Date(nowMs).toISOString(),
      event_type: { tracking_type: input.event_type },
      event_metadata: metadata,
    };
    if (input.click_id !== undefined) event.click_id = input.click_id;
    try {
      const response = await fetch(
        `${this.config.apiBaseUrl.replace(/\/+$/, '')}/api/v2.0/conversions/events/${encodeURIComponent(this.config.accountId)}`,
        {
          method: 'POST',
          headers: { authorization: `Bearer ${this.config.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ test_mode: this.config.testMode, events: [event] }),
          signal: AbortSignal.timeout(this.config.timeoutMs),
        },
      );
      if (!response.ok) throw new Error(`ad network answered ${response.status}`);
      await response.arrayBuffer();
    } catch (error) {
      await this.db.deleteFrom('ad_conversions').where('event_id', '=', input.event_id).where('status', '=', 'sending').execute();
      throw new AppError('UPSTREAM_FAILED', 'The ad network did not accept the conversion', { cause: error });
    }
    await this.db.updateTable('ad_conversions').set({ status: 'sent' }).where('event_id', '=', input.event_id).execute();
    return { duplicate: false };
  }
}

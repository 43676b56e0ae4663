/**
 * Early holds through the real gateway: once a committed hold has shown the wallet's spare credit, the next call's
 * upstream request leaves while its own hold commits. The answer waits for that commit, so a wallet emptied
 * meanwhile elsewhere (another node, an operator's debit) still gets 402 and is charged nothing.
 */
import { describe, expect, it } from 'vitest';
import { chat, CHAT_BODY, credit, newCustomer, probeHold, settledWalletOf, withListeningGateway } from './helpers.js';

describe('early holds', () => {
  const gateway = withListeningGateway();

  const callRows = (customerId: number) =>
    gateway.context.storage.db
      .selectFrom('billing_calls')
      .select(['status', 'cost_micros'])
      .where('customer_id', '=', customerId)
      .execute();

  for (const stream of [false, true]) {
    it(`${stream ? 'stream' : 'json'}: a call started early and refused at its hold's commit answers 402, sends nothing of the upstream's answer and charges nothing`, async () => {
      const { context, upstream, url } = gateway;
      const buyer = await newCustomer(context, 1_000_000);
      const hold = await probeHold(context, upstream, url, buyer.systemToken, buyer.customerId);
      // A second call on the known spare credit: started early, committed, billed like any other.
      const probed = await settledWalletOf(context, buyer.customerId);
      const second = await chat(url, buyer.systemToken, { ...CHAT_BODY, stream });
      expect(second.status).toBe(200);
      expect(await second.text()).toContain('chatcmpl');
      const before = await settledWalletOf(context, buyer.customerId);
      expect(before.balanceMicros).toBe(probed.balanceMicros - hold);

      // Spent elsewhere: the service's view of the spare credit is now too high.
      await credit(context, buyer.customerId, -(before.availableMicros - hold + 1));
      const sentBefore = upstream.requests.length;
      const refused = await chat(url, buyer.systemToken, { ...CHAT_BODY, stream });
      expect(refused.status).toBe(402);
      const body = await refused.text();
      expect(JSON.parse(body).error).toMatchObject({ code: 'insufficient_credit', type: 'insufficient_quota' });
      expect(body).not.toContain('chatcmpl');
      // The upstream request had left before the refusal: that is what the early hold saves on every other call.
      expect(upstream.requests.length).toBe(sentBefore + 1);
      expect(await settledWalletOf(context, buyer.customerId)).toMatchObject({ balanceMicros: hold - 1, holdsMicros: 0 });
      expect(await callRows(buyer.customerId)).toHaveLength(2);

      // The refusal dropped the view: the next call waits for its hold, and is refused before reaching the upstream.
      const again = await chat(url, buyer.systemToken, { ...CHAT_BODY, stream });
      expect(again.status).toBe(402);
      await again.text();
      expect(upstream.requests.length).toBe(sentBefore + 1);
    });
  }
});

/**
 * Inbox and mail flooding by new-network alerts: every first use of a key from another network (a CI whose
 * runners come from a cloud's many networks, or whoever holds a leaked key and rotates addresses) raises its alert,
 * but only the first few of a day land in the inbox and the mail; the rest are in the alert list, and the
 * inbox and outbox stay bounded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp } from '../chassis/support.js';

/** Polls until the condition holds (the notices are written off the request path), for at most 15 s. */
async function settle(condition: () => Promise<boolean>): Promise<void> {
  for (const deadline = Date.now() + 15_000; Date.now() < deadline && !(await condition());)
    await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('new-network alerts do not flood the inbox', () => {
  let context: TestContext;

  beforeAll(async () => {
    context = await createTestContext();
  });
  afterAll(async () => {
    await context.close();
  });

  /** The customer's inbox entries for new networks. */
  const noticesOf = async (customerId: number) =>
    (
      await context.services.storage.db
        .selectFrom('inbox_messages')
        .select('id')
        .where('customer_id', '=', customerId)
        .where('title', '=', 'API key used from a new network')
        .execute()
    ).length;

  it('twenty networks in a day: twenty alerts, at most three inbox entries and alert mails', async () => {
    const who = await signUp(context, 'ci');
    const { db } = context.services.storage;
    for (let i = 0; i < 21; i++) {
      const response = await context.app.inject({
        method: 'GET',
        url: '/api/v1/customer-engagement',
        headers: bearer(who.systemToken),
        remoteAddress: `198.51.${i}.7`,
      });
      expect(response.statusCode).toBe(200);
      // The first network is the key's own (never alerted): recorded before the others come.
      for (let wait = 0; i === 0 && wait < 300; wait++) {
        const known = await db.selectFrom('key_networks').select('key_id').where('key_id', '=', who.systemTokenId).execute();
        if (known.length > 0) break;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    }
    const alerts = () =>
      db.selectFrom('account_alerts').select('id').where('customer_id', '=', who.customerId).where('cause', '=', 'new_network').execute();
    const notices = () => noticesOf(who.customerId);
    const mails = async () =>
      (await db.selectFrom('mail_outbox').select('id').where('customer_id', '=', who.customerId).where('kind', '=', 'alert').execute())
        .length;
    for (let i = 0; i < 300 && (await alerts()).length < 20; i++) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(await alerts()).toHaveLength(20);
    // The notices are written off the request path: wait for the three, then give a fourth the time to come.
    await settle(async () => (await notices()) >= 3 && (await mails()) >= 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await notices()).toBe(3);
    expect(await mails()).toBe(3);
    // Every one of them is in the alert list.
    const listed = await context.app.inject({
      method: 'GET',
      url: '/api/v1/me/api-key-alerts',
      headers: bearer(who.systemToken),
      remoteAddress: '198.51.0.7',
    });
    expect(listed.statusCode).toBe(200);
    expect((listed.json().data as { cause: string }[]).filter((alert) => alert.cause === 'new_network')).toHaveLength(20);
  });

  it('a burst stored before its first notifiers ran still puts the first three in the inbox', async () => {
    const who = await signUp(context, 'burst');
    // Five alerts raised together: every insert is queued before the first notifier's count, so each notifier
    // must count the alerts raised before its own, not all of the day's.
    await Promise.all(
      Array.from({ length: 5 }, (_, i) =>
        context.services.accounts.alerts.raise(who.customerId, {
          cause: 'new_network',
          causeKey: `net:203.0.113.${i}`,
          keyId: who.systemTokenId,
          details: { network: `203.0.113.${i}/32` },
        }),
      ),
    );
    const notices = () => noticesOf(who.customerId);
    await settle(async () => (await notices()) >= 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await notices()).toBe(3);
  });
});

/**
 * The one-click unsubscribe link as an outsider meets it: opening it (GET, or the HEAD a mail scanner sends
 * first) changes nothing and answers a page whose button confirms; the RFC 8058 one-click POST turns exactly the
 * preference the signed token names off. A token made for another customer or preference, one for a customer
 * who does not exist, a huge or malformed one are refused and change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';

const PATH = '/api/v1/customer-engagement/unsubscribe';

describe('one-click unsubscribe link', () => {
  let context: TestContext;
  let alice: SignedUp;
  let bob: SignedUp;

  beforeAll(async () => {
    context = await createTestContext();
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => {
    await context.close();
  });

  const email = async (who: SignedUp) =>
    (await context.app.inject({ method: 'GET', url: '/api/v1/customer-engagement', headers: bearer(who.systemToken) })).json().email;
  const link = (customerId: number, preference: 'billing' | 'productUpdates' | 'inboxDigest' | 'keyAlerts') =>
    `${PATH}?token=${encodeURIComponent(context.services.accounts.unsubscribe.token(customerId, preference))}`;
  const oneClick = (url: string) =>
    context.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'List-Unsubscribe=One-Click',
    });

  it('GET and HEAD (a mail scanner following the link) change nothing; the page confirms with a POST', async () => {
    const url = link(alice.customerId, 'billing');
    const head = await context.app.inject({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    const opened = await context.app.inject({ method: 'GET', url });
    expect(opened.statusCode).toBe(200);
    expect(opened.headers['content-type']).toContain('text/html');
    expect(opened.body).toContain('<form method="post"');
    expect(opened.body).toContain('billing mail');
    expect((await email(alice)).billing).toBe(true);

    // The page's button: a browser's form post (it wants HTML back).
    const confirmed = await context.app.inject({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      payload: 'List-Unsubscribe=One-Click',
    });
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.headers['content-type']).toContain('text/html');
    expect(confirmed.body).toContain('Unsubscribed');
    expect((await email(alice)).billing).toBe(false);
  });

  it('one-click POST turns off only what the token names; replaying it changes nothing more', async () => {
    const url = link(bob.customerId, 'productUpdates');
    await context.app.inject({
      method: 'PUT',
      url: '/api/v1/customer-engagement',
      headers: bearer(bob.systemToken),
      payload: { email: { productUpdates: true } },
    });
    const first = await oneClick(url);
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toEqual({ unsubscribed: true, preference: 'email.productUpdates' });
    expect(await email(bob)).toMatchObject({ productUpdates: false, billing: true, keyAlerts: true });
    expect((await oneClick(url)).statusCode).toBe(200);
    expect(await email(bob)).toMatchObject({ productUpdates: false, billing: true, keyAlerts: true });
  });

  it('a token for another customer or preference, for nobody, huge or malformed is refused and changes nothing', async () => {
    const token = context.services.accounts.unsubscribe.token(bob.customerId, 'keyAlerts');
    const signature = token.split('.')[2]!;
    const attempts = [
      `${alice.customerId}.keyAlerts.${signature}`, // another customer
      `${bob.customerId}.billing.${signature}`, // another preference
      `0${bob.customerId}.keyAlerts.${signature}`, // the same number spelt differently
      `${bob.customerId}.keyAlerts.${signature}x`,
      `${bob.customerId}.constructor.${signature}`,
      `${bob.customerId}..${signature}`,
      'x'.repeat(100_000),
      '%00',
    ];
    for (const attempt of attempts) {
      for (const method of ['GET', 'POST'] as const) {
        const response = await context.app.inject({ method, url: `${PATH}?token=${encodeURIComponent(attempt)}` });
        expect(response.statusCode, `${method} ${attempt.slice(0, 40)}`).toBe(422);
        expect(response.json().detail).toBeDefined();
      }
    }
    const noToken = await context.app.inject({ method: 'POST', url: PATH });
    expect(noToken.statusCode).toBe(422);
    expect(await email(bob)).toMatchObject({ keyAlerts: true, billing: true });
    expect(await email(alice)).toMatchObject({ keyAlerts: true });

    // Correctly signed, but for a customer who does not exist: 404, and no settings row appears.
    const nobody = await oneClick(link(987_654, 'billing'));
    expect(nobody.statusCode).toBe(404);
    const rows = await context.services.storage.db
      .selectFrom('account_settings')
      .select('customer_id')
      .where('customer_id', '=', 987_654)
      .execute();
    expect(rows).toEqual([]);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/kernel/clock.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';

describe('desktop shoutbox', () => {
  let context: TestContext;
  const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
  let alice: SignedUp;
  let bob: SignedUp;
  let carol: SignedUp;

  beforeAll(async () => {
    context = await createTestContext({ clock, config: { desktop: { shoutbox: { maxMessageChars: 20, messagesPerMinute: 3 } } } as never });
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
    carol = await signUp(context, 'carol');
  });
  afterAll(async () => context.close());

  const post = (url: string, who: SignedUp, payload: unknown) =>
    context.app.inject({ method: 'POST', url, headers: bearer(who.systemToken), payload: payload as never });
  const get = (url: string, who: SignedUp) => context.app.inject({ method: 'GET', url, headers: bearer(who.systemToken) });
  const shout = (who: SignedUp, text: string) => post('/api/v1/desktop-chat/shoutbox/messages', who, { text });
  const profile = (who: SignedUp, username: string) => post('/api/v1/desktop-chat/shoutbox/profile', who, { username });

  it('bootstrap before a username: no profile, no messages, the limits; posting needs a username (412)', async () => {
    const boot = await get('/api/v1/desktop-chat/shoutbox/bootstrap', alice);
    expect(boot.statusCode, boot.body).toBe(200);
    expect(boot.json()).toMatchObject({ profile: null, messages: [], limits: { max_message_chars: 20, messages_per_minute: 3 } });
    expect((await shout(alice, 'hello')).statusCode).toBe(412);
  });

  it('usernames: bounded charset (422), unique ignoring case (409), renaming your own is fine', async () => {
    expect((await profile(alice, 'Alice_1')).statusCode).toBe(200);
    expect((await profile(bob, 'alice_1')).statusCode).toBe(409);
    expect((await profile(bob, 'ALICE_1')).json().username).toBe('ALICE_1');
    for (const bad of ['ab', 'x'.repeat(25), 'has space', '<b>bold</b>', 'ünïcode', 'a;drop']) {
      expect((await profile(bob, bad)).statusCode, bad).toBe(422);
    }
    expect((await post('/api/v1/desktop-chat/shoutbox/profile', bob, { username: 'bobby', extra: 1 })).statusCode).toBe(422);
    expect((await profile(bob, 'bobby')).statusCode).toBe(200);
    expect((await profile(alice, 'ALICE_1')).statusCode).toBe(200); // free again after bob renamed
    expect((await profile(alice, 'alice')).statusCode).toBe(200);
    expect((await get('/api/v1/desktop-chat/shoutbox/bootstrap', alice)).json().profile).toEqual({ username: 'alice' });
  });

  it('messages are stored as text, shared by everyone, newest first with paging; too long or blank → 422', async () => {
    const html = '<img src=x onerror=1>';
    expect((await shout(alice, html)).statusCode).toBe(422); // 21 characters > 20
    const first = await shout(alice, '  <b>hi</b> & bye  ');
    expect(first.statusCode, first.body).toBe(201);
    expect(first.json()).toMatchObject({ username: 'alice', text: '<b>hi</b> & bye', mine: true });
    expect((await shout(alice, '   ')).statusCode).toBe(422);
    expect((await shout(alice, '😀'.repeat(20))).statusCode).toBe(201); // counted in characters, not UTF-16 units
    const second = await shout(bob, 'hello alice');
    expect(second.statusCode).toBe(201);

    const list = await get('/api/v1/desktop-chat/shoutbox/messages', carol);
    expect(list.statusCode).toBe(200);
    expect(list.headers['content-type']).toMatch(/^application\/json/);
    const data = list.json().data;
    expect(data.map((message: { username: string }) => message.username)).toEqual(['bobby', 'alice', 'alice']);
    expect(data[2]).toMatchObject({ text: '<b>hi</b> & bye', mine: false });
    expect((await get('/api/v1/desktop-chat/shoutbox/messages', bob)).json().data[0].mine).toBe(true);
    const older = (await get(`/api/v1/desktop-chat/shoutbox/messages?before_id=${second.json().id}&limit=1`, carol)).json().data;
    expect(older).toHaveLength(1);
    const newer = (await get(`/api/v1/desktop-chat/shoutbox/messages?after_id=${first.json().id}`, carol)).json().data;
    expect(newer).toHaveLength(2);
    expect((await post('/api/v1/desktop-chat/shoutbox/messages', bob, { text: 'x', html: true })).statusCode).toBe(422);
  });

  it('rate-limited per customer: the next message in the minute → 429 with Retry-After; others unaffected', async () => {
    clock.advance(120_000);
    await profile(carol, 'carol');
    for (let index = 0; index < 3; index += 1) expect((await shout(carol, `m${index}`)).statusCode).toBe(201);
    clock.advance(10_000);
    const limited = await shout(carol, 'one more');
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBe(50);
    expect((await shout(bob, 'not me')).statusCode).toBe(201);
    clock.advance(50_000);
    expect((await shout(carol, 'again')).statusCode).toBe(201);
  });

  it('concurrent posts cannot exceed the limit', async () => {
    clock.advance(120_000);
    const results = await Promise.all(Array.from({ length: 8 }, (_, index) => shout(alice, `burst ${index}`)));
    const codes = results.map((response) => response.statusCode);
    expect(codes.filter((code) => code === 201)).toHaveLength(3);
    expect(codes.filter((code) => code === 429)).toHaveLength(5);
  });

  it('needs a key', async () => {
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/desktop-chat/shoutbox/messages' })).statusCode).toBe(401);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream } from '../fakes/model-upstream.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { billingContext, CHAT_BODY, credit } from '../billing/helpers.js';
import { formatUsd } from '../../src/kernel/money.js';
import { startBotApi, startProvider, throughProvider, type BotApiDouble } from './support.js';
import { dollars } from '../../src/chatbot/bot.js';
import { FakeClock } from '../../src/kernel/clock.js';
import { signUp } from '../chassis/support.js';

const SECRET = 'chatbot-webhook-secret-0123456789';
const redirectUri = 'http://127.0.0.1:1/api/v1/chatbot/idp/callback';

describe('chat bot: webhook commands and account linking', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let idp: Awaited<ReturnType<typeof startProvider>>;
  let botApi: BotApiDouble;
  let alice: { id: number; key: string };
  let updateId = 1000;

  beforeAll(async () => {
    upstream = await startModelUpstream();
    upstream.setDefault(() => ({ kind: 'text', text: 'one two three', usage: { inputTokens: 1000, outputTokens: 500 } }));
    idp = await startProvider(redirectUri);
    botApi = await startBotApi();
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: {
        idp: { issuer: idp.issuer, clientId: 'switchyard', clientSecret: 'switchyard-client-secret-0123456789' },
        chatbot: { webhookSecret: SECRET, botToken: 'bot-token-123', apiBaseUrl: botApi.url, idpRedirectUrl: redirectUri },
      },
    });
    const created = await context.services.customers.create({ email: 'alice.chat@example.test' });
    alice = { id: created.customer.id, key: created.systemToken.key };
    await credit(context, alice.id, 5_000_000);
    idp.accounts.set('u-alice', { email: 'alice.chat@example.test', email_verified: true, name: 'Alice' });
    idp.accounts.set('u-nobody', { email: 'nobody@example.test', email_verified: true, name: 'Nobody' });
    idp.accounts.set('u-unverified', { email: 'alice.chat@example.test', email_verified: false, name: 'Alice?' });
  });
  afterAll(async () => {
    await context.close();
    await upstream.close();
    await idp.close();
    await botApi.close();
  });

  const webhook = (
    chatId: number,
    text: string,
    headers: Record<string, string> = { 'x-telegram-bot-api-secret-token': SECRET },
    id = ++updateId,
  ) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/chatbot/webhook',
      headers,
      payload: { update_id: id, message: { message_id: id, chat: { id: chatId, type: 'private' }, text } },
    });
  const lastReply = (chatId: number) => botApi.calls.filter((call) => call.body.chat_id === String(chatId)).at(-1)?.body.text ?? '';
  const say = async (chatId: number, text: string) => {
    const response = await webhook(chatId, text);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ ok: true, delivered: true });
    return lastReply(chatId);
  };
  const linkFrom = (reply: string) => new URL(/(https?:\/\/\S+\/api\/v1\/chatbot\/idp\/start\?\S+)/.exec(reply)![1]!);
  const startPath = (link: URL) => `${link.pathname}${link.search}`;

  it('refuses unsigned or wrongly signed updates with 401 and does nothing', async () => {
    const before = botApi.calls.length;
    for (const headers of [
      {},
      { 'x-telegram-bot-api-secret-token': 'wrong' },
      { 'x-telegram-bot-api-secret-token': `${SECRET}x` },
      { 'x-telegram-bot-api-secret-token': SECRET.toUpperCase() },
    ]) {
      const response = await webhook(77, '/balance', headers as Record<string, string>);
      expect(response.statusCode, JSON.stringify(headers)).toBe(401);
    }
    // The secret is checked before the body is even read: a malformed, unparsable or oversized body without the
    // secret is 401 too, never 400, 413 or 422.
    const unsignedBodies: { headers: Record<string, string>; payload: string }[] = [
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ nope: true }) },
      { headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'wrong' }, payload: '{"update_id": -1}' },
      { headers: { 'content-type': 'application/json' }, payload: '{not json' },
      { headers: { 'content-type': 'text/plain' }, payload: 'hello' },
      { headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ update_id: 1, pad: 'x'.repeat(300 * 1024) }) },
    ];
    for (const { headers, payload } of unsignedBodies) {
      const response = await context.app.inject({ method: 'POST', url: '/api/v1/chatbot/webhook', headers, payload });
      expect(response.statusCode, payload.slice(0, 40)).toBe(401);
      expect(response.json().code).toBe('UNAUTHENTICATED');
    }
    expect(botApi.calls.length).toBe(before);
    expect(await context.storage.db.selectFrom('chatbot_updates').selectAll().execute()).toEqual([]);
    // With the secret, a malformed body is a 422 like everywhere, and nothing is done either.
    const invalid = await context.app.inject({
      method: 'POST',
      url: '/api/v1/chatbot/webhook',
      headers: { 'x-telegram-bot-api-secret-token': SECRET },
      payload: { nope: true },
    });
    expect(invalid.statusCode).toBe(422);
    expect(botApi.calls.length).toBe(before);
    expect(await context.storage.db.selectFrom('chatbot_updates').selectAll().execute()).toEqual([]);
  });

  it('an unlinked chat gets help and a signed link, never account data', async () => {
    const help = await say(501, '/start');
    expect(help).toContain('/balance');
    expect(linkFrom(help).searchParams.get('chat_id')).toBe('501');
    const balance = await say(501, '/balance@SwitchyardBot');
    expect(balance).toMatch(/not linked/);
    expect(balance).not.toMatch(/\$/);
    for (const command of ['/usage', '/alerts']) expect(await say(501, command)).toMatch(/not linked/);
    expect(await say(501, 'hello')).toMatch(/Unknown command/);
    expect(botApi.calls.every((call) => call.token === 'bot-token-123' && call.method === 'sendMessage')).toBe(true);
  });

  it('links a chat through the identity provider; the state is bound to the chat and single use', async () => {
    const link = linkFrom(await say(501, '/link'));
    // A signature is for its own chat only, and the parameters are checked.
    const forged = new URL(link);
    forged.searchParams.set('chat_id', '502');
    const refused = await context.app.inject({ method: 'GET', url: startPath(forged) });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error).toBe('link_invalid');
    expect((await context.app.inject({ method: 'GET', url: '/api/v1/chatbot/idp/start?chat_id=501' })).statusCode).toBe(422);

    idp.signInAs('u-alice');
    const start = await context.app.inject({ method: 'GET', url: startPath(link) });
    expect(start.statusCode, start.body).toBe(302);
    const authorization = new URL(String(start.headers.location));
    expect(authorization.origin).toBe(idp.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    const back = await throughProvider(authorization.href, redirectUri);
    const done = await context.app.inject({ method: 'GET', url: `/api/v1/chatbot/idp/callback${back.search}` });
    expect(done.statusCode, done.body).toBe(200);
    expect(done.json()).toEqual({ linked: true, chat_id: '501' });
    expect(lastReply(501)).toMatch(/now linked to alice\.chat@example\.test/);
    const links = await context.storage.db.selectFrom('chatbot_links').selectAll().execute();
    expect(links.map((row) => [row.chat_id, Number(row.customer_id)])).toEqual([['501', alice.id]]);

    const replay = await context.app.inject({ method: 'GET', url: `/api/v1/chatbot/idp/callback${back.search}` });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error).toBe('state_invalid');
    const unknown = await context.app.inject({ method: 'GET', url: '/api/v1/chatbot/idp/callback?state=made-up&code=x' });
    expect(unknown.statusCode).toBe(400);
  });

  it('an unknown account or an unverified email does not link', async () => {
    for (const [account, code] of [
      ['u-nobody', 'no_account'],
      ['u-unverified', 'email_unverified'],
    ] as const) {
      idp.signInAs(account);
      const link = linkFrom(await say(601, '/link'));
      const start = await context.app.inject({ method: 'GET', url: startPath(link) });
      const back = await throughProvider(String(start.headers.location), redirectUri);
      const done = await context.app.inject({ method: 'GET', url: `/api/v1/chatbot/idp/callback${back.search}` });
      expect(done.statusCode, account).toBe(400);
      expect(done.json().error).toBe(code);
    }
    expect(
      await context.storage.db.selectFrom('chatbot_links').select('chat_id').where('chat_id', '=', '601').executeTakeFirst(),
    ).toBeUndefined();
    expect(await say(601, '/balance')).toMatch(/not linked/);
  });

  it('answers /balance, /usage and /alerts for the linked account', async () => {
    const call = await context.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: bearer(alice.key), payload: CHAT_BODY });
    expect(call.statusCode, call.body).toBe(200);
    const wallet = await context.services.billing.walletSummary(alice.id);
    const balance = await say(501, '/balance');
    // Amounts carry the currency sign: "$4.99…", cents always shown.
    expect(balance).toMatch(/^Balance: \$\d+\.\d{2,6}$/m);
    expect(balance).toContain(`Balance: ${dollars(wallet.balanceMicros)}`);
    expect(dollars(wallet.balanceMicros)).toBe(`$${formatUsd(wallet.balanceMicros).replace(/0{1,4}$/, '')}`);
    expect(wallet.balanceMicros).toBeLessThan(5_000_000);
    const usage = await say(501, '/usage');
    expect(usage).toContain('1 request');
    expect(usage).toContain('Tokens: 1000 in, 500 out');
    expect(usage).toMatch(/^Spend: \$\d+\.\d{2,6}$/m);
    expect(usage).toContain(`Spend: ${dollars(5_000_000 - wallet.balanceMicros)}`);
    expect(await say(501, '/alerts')).toBe('No open alerts.');
    await context.services.accounts.alerts.raise(alice.id, { cause: 'key_revoked', causeKey: 'chatbot-test', details: {} });
    expect(await say(501, '/alerts')).toMatch(/Recent alerts:\n• key_revoked/);
  });

  it('a redelivered update is acknowledged once and not answered again; /unlink forgets the chat', async () => {
    const first = await webhook(501, '/balance', undefined, 9_999);
    expect(first.json()).toMatchObject({ duplicate: false, delivered: true });
    const calls = botApi.calls.length;
    const again = await webhook(501, '/balance', undefined, 9_999);
    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({ duplicate: true, delivered: false });
    expect(botApi.calls.length).toBe(calls);
    expect(await say(501, '/unlink')).toMatch(/no longer linked/);
    expect(await say(501, '/balance')).toMatch(/not linked/);
  });
});

describe('chat bot without a bot token or provider', () => {
  it('answers in the webhook response; without a configured secret every call is 401', async () => {
    const context = await createTestContext({ config: { chatbot: { webhookSecret: SECRET } } as never });
    const none = await createTestContext();
    try {
      const response = await context.app.inject({
        method: 'POST',
        url: '/api/v1/chatbot/webhook',
        headers: { 'x-telegram-bot-api-secret-token': SECRET },
        payload: { update_id: 1, message: { chat: { id: -100200 }, text: '/help' } },
      });
      expect(response.statusCode, response.body).toBe(200);
      expect(response.json()).toMatchObject({ method: 'sendMessage', chat_id: '-100200' });
      expect(response.json().text).toMatch(/one-time code on the dashboard.*\/link <code>/);
      expect(
        (
          await context.app.inject({
            method: 'GET',
            url: '/api/v1/chatbot/idp/start?chat_id=1&expires=9999999999&sig=aaaaaaaaaaaaaaaaaaaa',
          })
        ).statusCode,
      ).toBe(404);
      const unsigned = await none.app.inject({
        method: 'POST',
        url: '/api/v1/chatbot/webhook',
        headers: { 'x-telegram-bot-api-secret-token': '' },
        payload: { update_id: 1 },
      });
      expect(unsigned.statusCode).toBe(401);
      const malformed = await none.app.inject({
        method: 'POST',
        url: '/api/v1/chatbot/webhook',
        headers: { 'x-telegram-bot-api-secret-token': SECRET },
        payload: { nope: true },
      });
      expect(malformed.statusCode).toBe(401);
    } finally {
      await context.close();
      await none.close();
    }
  });
});

describe('chat-link signatures', () => {
  it('a link expires and is bound to its chat id', async () => {
    const { ChatLinking } = await import('../../src/chatbot/link.js');
    const { FakeClock } = await import('../../src/kernel/clock.js');
    const clock = new FakeClock(Date.UTC(2026, 5, 1, 12));
    const linking = new ChatLinking({
      storage: undefined as never,
      box: undefined as never,
      clock,
      logger: undefined as never,
      idp: { issuer: 'http://127.0.0.1:1', clientId: 'x' },
      serverSecret: 'test-secret-0123456789-0123456789-0123456789',
      redirectUrl: 'http://127.0.0.1:1/cb',
      publicBaseUrl: 'http://127.0.0.1:1',
      linkTtlMs: 60_000,
    });
    const link = new URL(linking.linkFor('42'));
    const expires = Number(link.searchParams.get('expires'));
    const sig = link.searchParams.get('sig')!;
    await expect(linking.start('43', expires, sig)).rejects.toMatchObject({ code: 'link_invalid' });
    await expect(linking.start('42', expires + 1, sig)).rejects.toMatchObject({ code: 'link_invalid' });
    clock.advance(61_000);
    await expect(linking.start('42', expires, sig)).rejects.toMatchObject({ code: 'link_expired' });
  });
});

describe('chat bot linking by a one-time code from the dashboard', () => {
  it('links without an identity provider: the code works once, within its time, only for its account', async () => {
    const clock = new FakeClock(Date.UTC(2026, 10, 1, 12));
    const context = await createTestContext({ clock, config: { chatbot: { webhookSecret: SECRET } } as never });
    try {
      let update = 100;
      const say = async (chatId: number, text: string) => {
        const response = await context.app.inject({
          method: 'POST',
          url: '/api/v1/chatbot/webhook',
          headers: { 'x-telegram-bot-api-secret-token': SECRET },
          payload: { update_id: update++, message: { chat: { id: chatId }, text } },
        });
        expect(response.statusCode, response.body).toBe(200);
        return response.json().text as string;
      };
      const owner = await signUp(context, 'codeowner');
      const issue = () => context.app.inject({ method: 'POST', url: '/api/v1/chatbot/link-code', headers: bearer(owner.systemToken) });
      expect((await context.app.inject({ method: 'POST', url: '/api/v1/chatbot/link-code' })).statusCode).toBe(401);
      const issued = await issue();
      expect(issued.statusCode, issued.body).toBe(201);
      const { code, command } = issued.json();
      expect(command).toBe(`/link ${code}`);
      const stored = await context.storage.db.selectFrom('chatbot_link_codes').select('code_hash').execute();
      expect(stored.map((row) => row.code_hash)).not.toContain(code);

      expect(await say(701, '/balance')).toMatch(/not linked/);
      expect(await say(701, '/link WRONGCODE1')).toMatch(/unknown, used or expired/);
      expect(await say(701, command)).toMatch(/now linked/);
      expect(await say(701, '/balance')).toMatch(/^Balance: \$0\.00$/m);
      // Used up: another chat cannot take it.
      expect(await say(702, command)).toMatch(/unknown, used or expired/);
      expect(await say(702, '/balance')).toMatch(/not linked/);
      // Expired after ten minutes.
      const late = (await issue()).json().code as string;
      clock.advance(10 * 60_000 + 1);
      expect(await say(703, `/link ${late}`)).toMatch(/unknown, used or expired/);
      expect(await say(703, '/balance')).toMatch(/not linked/);
    } finally {
      await context.close();
    }
  });
});

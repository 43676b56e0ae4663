import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, credit, expectLedgerConsistent, newCustomer, type TestCustomer } from '../billing/helpers.js';

/** The text lines of an uncompressed pdfkit document (its TJ arrays of hex strings, decoded). */
function pdfText(pdf: Buffer): string {
  const lines: string[] = [];
  for (const array of pdf.toString('latin1').matchAll(/\[([^\]]*)\]\s*TJ/g)) {
    lines.push([...array[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((hex) => Buffer.from(hex[1]!, 'hex').toString('latin1')).join(''));
  }
  return lines.join('\n');
}

const USAGE = { inputTokens: 1000, outputTokens: 500 };
const CALL_COST = 16_000; // 1000 × $4/M + 500 × $24/M

/** Scripts the upstream by what the gateway sent: plan calls, section calls, and anything else. */
function systemOf(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
}

describe('desktop chat research mode', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let alice: TestCustomer;
  let bob: TestCustomer;
  let aliceChat: number;
  let bobChat: number;
  let gate: Promise<void> = Promise.resolve();
  let openGate = () => {};
  let plan: Reply = { kind: 'text', text: '' };
  let section: (heading: string) => Reply = () => ({ kind: 'text', text: '' });

  beforeAll(async () => {
    upstream = await startModelUpstream();
    upstream.setDefault(async (request) => {
      const system = systemOf(request);
      if (system.includes('You plan a research report')) {
        await gate;
        return plan;
      }
      const heading = /Write the section "([^"]*)"/.exec(system)?.[1];
      return heading ? section(heading) : { kind: 'text', text: 'plain reply', usage: USAGE };
    });
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: { desktop: { chat: { freeDailyMessages: 0, researchMaxSections: 3 } } },
    });
    alice = await newCustomer(context);
    bob = await newCustomer(context);
    await credit(context, alice.customerId, 5_000_000);
    await credit(context, bob.customerId, 5_000_000);
    aliceChat = (
      await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/conversations',
        headers: bearer(alice.systemToken),
        payload: { title: 'research' },
      })
    ).json().id;
    bobChat = (
      await context.app.inject({ method: 'POST', url: '/api/v1/desktop-chat/conversations', headers: bearer(bob.systemToken), payload: {} })
    ).json().id;
  });
  // A failed test must not leave a plan call waiting.
  afterEach(() => openGate());
  afterAll(async () => {
    await context.services.desktop.chatResearch.idle();
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
  });

  const research = (who: TestCustomer, conversationId: number, content: string, extra: Record<string, unknown> = {}) =>
    context.app.inject({
      method: 'POST',
      url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
      headers: bearer(who.systemToken),
      payload: { content, mode: 'research', ...extra },
    });
  const pdfOf = (who: TestCustomer, messageId: number | string) =>
    context.app.inject({ method: 'GET', url: `/api/v1/desktop-chat/messages/${messageId}/research.pdf`, headers: bearer(who.systemToken) });
  const messagesOf = async (who: TestCustomer, conversationId: number) =>
    (
      await context.app.inject({
        method: 'GET',
        url: `/api/v1/desktop-chat/conversations/${conversationId}/messages`,
        headers: bearer(who.systemToken),
      })
    ).json().data as {
      id: number;
      role: string;
      content: string;
      research: { status: string; title: string | null; sections: string[]; sources: string[]; calls: number; error: string | null } | null;
    }[];
  const balance = async (who: TestCustomer) => (await context.services.billing.walletSummary(who.customerId)).balanceMicros;
  const holdGate = () => {
    let open!: () => void;
    gate = new Promise<void>((resolve) => (open = resolve));
    openGate = open;
    return open;
  };

  it('plan, then one billed call per section (bounded); sources collected; stored with the reply; PDF when completed', async () => {
    plan = {
      kind: 'text',
      text: 'Here is the plan:\n```json\n{"title": "Solar power in Norway", "sections": ["Background", "Economics", "Outlook", "Too many"]}\n```',
      usage: USAGE,
    };
    section = (heading) => ({
      kind: 'text',
      text: `${heading} text. See https://example.org/${heading.toLowerCase()}, and (https://stats.example.com/solar).`,
      usage: USAGE,
    });
    const open = holdGate();
    const before = await balance(alice);
    const calls = upstream.requests.length;
    const started = await research(alice, aliceChat, 'Is solar power worth it in Norway?');
    expect(started.statusCode, started.body).toBe(202);
    const [prompt, reply] = started.json().messages;
    expect(prompt).toMatchObject({ role: 'user', content: 'Is solar power worth it in Norway?', research: null });
    expect(reply).toMatchObject({ role: 'assistant', content: '', research: { status: 'pending', sections: [], sources: [] } });

    await upstream.waitForRequests(calls + 1);
    const running = (await messagesOf(alice, aliceChat)).find((message) => message.id === reply.id)!;
    expect(running.research!.status).toBe('running');
    const early = await pdfOf(alice, reply.id);
    expect(early.statusCode).toBe(404);

    open();
    await context.services.desktop.chatResearch.idle();
    expect(upstream.requests.length).toBe(calls + 4); // plan + 3 sections (researchMaxSections)
    for (const request of upstream.requests.slice(calls))
      expect(JSON.stringify(request.body.messages)).toContain('Is solar power worth it in Norway?');
    expect(before - (await balance(alice))).toBe(4 * CALL_COST);

    const done = (await messagesOf(alice, aliceChat)).find((message) => message.id === reply.id)!;
    expect(done.research).toMatchObject({
      status: 'completed',
      title: 'Solar power in Norway',
      sections: ['Background', 'Economics', 'Outlook'],
      sources: [
        'https://example.org/background',
        'https://stats.example.com/solar',
        'https://example.org/economics',
        'https://example.org/outlook',
      ],
      calls: 4,
      error: null,
    });
    expect(done.content).toContain('Economics text.');

    const pdf = await pdfOf(alice, reply.id);
    expect(pdf.statusCode, pdf.body).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    const bytes = pdf.rawPayload;
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(bytes.subarray(-6).toString('latin1')).toContain('%%EOF');
    const text = pdfText(bytes);
    for (const expected of ['Solar power in Norway', 'Background', 'Outlook text.', 'Sources', 'https://stats.example.com/solar'])
      expect(text).toContain(expected);
    expect(text).not.toContain('Too many');

    // The finished report is context for the next message; the prompt message itself has no PDF.
    expect((await pdfOf(alice, prompt.id)).statusCode).toBe(404);
  });

  it('BOLA: another customer’s research PDF, unknown ids and research into a foreign conversation → 404', async () => {
    const completed = (await messagesOf(alice, aliceChat)).find((message) => message.research?.status === 'completed')!;
    expect((await pdfOf(alice, completed.id)).statusCode).toBe(200);
    const foreign = await pdfOf(bob, completed.id);
    const unknown = await pdfOf(bob, 987654321);
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json().detail).toBe(unknown.json().detail);
    expect(foreign.body).not.toContain('Solar');
    expect((await pdfOf(bob, 'abc')).statusCode).toBe(404);

    const calls = upstream.requests.length;
    const sneaky = await research(bob, aliceChat, 'sneaky');
    expect(sneaky.statusCode).toBe(404);
    expect(upstream.requests.length).toBe(calls);
    expect((await messagesOf(alice, aliceChat)).some((message) => message.content === 'sneaky')).toBe(false);
  });

  it('a plan that is not JSON fails the analysis: error stored, PDF stays 404, only the plan call billed', async () => {
    plan = { kind: 'text', text: 'I would rather not plan.', usage: USAGE };
    const before = await balance(bob);
    const started = await research(bob, bobChat, 'Plan this');
    expect(started.statusCode, started.body).toBe(202);
    await context.services.desktop.chatResearch.idle();
    const reply = (await messagesOf(bob, bobChat)).find((message) => message.id === started.json().messages[1].id)!;
    expect(reply.research).toMatchObject({ status: 'failed', calls: 1 });
    expect(reply.research!.error).toMatch(/no usable plan/);
    expect(reply.content).toBe('');
    expect(before - (await balance(bob))).toBe(CALL_COST);
    expect((await pdfOf(bob, reply.id)).statusCode).toBe(404);
  });

  it('an upstream failure in a section fails the analysis', async () => {
    plan = { kind: 'text', text: '{"title": "T", "sections": ["One", "Two"]}', usage: USAGE };
    section = (heading) =>
      heading === 'Two'
        ? { kind: 'http_error', status: 500, body: { error: { message: 'boom' } } }
        : { kind: 'text', text: 'one', usage: USAGE };
    const started = await research(bob, bobChat, 'Fails midway');
    await context.services.desktop.chatResearch.idle();
    const reply = (await messagesOf(bob, bobChat)).find((message) => message.id === started.json().messages[1].id)!;
    expect(reply.research).toMatchObject({ status: 'failed', title: 'T', sections: ['One'] });
    expect((await pdfOf(bob, reply.id)).statusCode).toBe(404);
  });

  it('402 up front when the wallet has nothing available; bad mode or research with stream → 422; nothing stored', async () => {
    const carol = await newCustomer(context);
    const chat = (
      await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/conversations',
        headers: bearer(carol.systemToken),
        payload: {},
      })
    ).json().id;
    const calls = upstream.requests.length;
    const refused = await research(carol, chat, 'Research please');
    expect(refused.statusCode, refused.body).toBe(402);
    expect(refused.json().code).toBe('insufficient_credit');
    expect((await research(alice, aliceChat, 'x', { mode: 'essay' })).statusCode).toBe(422);
    expect((await research(alice, aliceChat, 'streamed research', { stream: true })).statusCode).toBe(422);
    expect(upstream.requests.length).toBe(calls);
    expect(await messagesOf(carol, chat)).toEqual([]);
    expect((await messagesOf(alice, aliceChat)).some((message) => message.content === 'streamed research')).toBe(false);
  });

  it('a start marks analyses left running as failed, and a late answer does not revive them', async () => {
    plan = { kind: 'text', text: '{"title": "Late", "sections": ["A"]}', usage: USAGE };
    const open = holdGate();
    const calls = upstream.requests.length;
    const started = await research(alice, aliceChat, 'Interrupted');
    await upstream.waitForRequests(calls + 1);
    await context.services.desktop.start();
    open();
    await context.services.desktop.chatResearch.idle();
    expect(upstream.requests.length).toBe(calls + 1);
    const reply = (await messagesOf(alice, aliceChat)).find((message) => message.id === started.json().messages[1].id)!;
    expect(reply.research).toMatchObject({ status: 'failed', error: 'Interrupted by a service restart' });
    expect((await pdfOf(alice, reply.id)).statusCode).toBe(404);
  });

  it('shutdown aborts a running analysis: failed, its call settled (no hold left open)', async () => {
    plan = { kind: 'text', text: '{"title": "Cut", "sections": ["A"]}', usage: USAGE };
    holdGate();
    const calls = upstream.requests.length;
    const started = await research(alice, aliceChat, 'Cut short');
    await upstream.waitForRequests(calls + 1);
    await context.services.desktop.chatResearch.close();
    const reply = (await messagesOf(alice, aliceChat)).find((message) => message.id === started.json().messages[1].id)!;
    expect(reply.research).toMatchObject({ status: 'failed', error: 'Interrupted by a service shutdown' });
    const open = await context.storage.db.selectFrom('billing_calls').select('id').where('status', '=', 'open').execute();
    expect(open).toEqual([]);
    expect((await context.services.billing.walletSummary(alice.customerId)).holdsMicros).toBe(0);
  });

  it('deleting the conversation removes its research; the PDF is gone', async () => {
    plan = { kind: 'text', text: '{"title": "Doomed", "sections": ["Only"]}', usage: USAGE };
    section = () => ({ kind: 'text', text: 'only text', usage: USAGE });
    const chat = (
      await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/conversations',
        headers: bearer(alice.systemToken),
        payload: {},
      })
    ).json().id;
    const started = await research(alice, chat, 'Doomed research');
    await context.services.desktop.chatResearch.idle();
    const replyId = started.json().messages[1].id;
    expect((await pdfOf(alice, replyId)).statusCode).toBe(200);
    expect(
      (
        await context.app.inject({
          method: 'DELETE',
          url: `/api/v1/desktop-chat/conversations/${chat}`,
          headers: bearer(alice.systemToken),
        })
      ).statusCode,
    ).toBe(204);
    expect((await pdfOf(alice, replyId)).statusCode).toBe(404);
    expect(await context.storage.db.selectFrom('desktop_chat_research').select('id').where('conversation_id', '=', chat).execute()).toEqual(
      [],
    );
  });
});

/**
 * Research that researches: the operator's search API (a local fake) feeds the section calls, each cited source is
 * fetched through the SSRF-safe client (a local https host with a test certificate) and marked verified — reachable
 * and the quoted passage found — or not, with the reason, in the message and the PDF.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startModelUpstream, type ModelUpstream, type RecordedRequest } from '../fakes/model-upstream.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingConfig, billingContext, credit, expectLedgerConsistent, newCustomer, type TestCustomer } from '../billing/helpers.js';
import { makeCertificate, startRepoHost, type RepoHost } from '../object-workspace/support.js';

const USAGE = { inputTokens: 1000, outputTokens: 500 };

function systemOf(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: unknown }[];
  const system = messages.find((message) => message.role === 'system' || message.role === 'developer');
  return typeof system?.content === 'string' ? system.content : JSON.stringify(system?.content ?? '');
}

/** The text lines of an uncompressed pdfkit document (its TJ arrays of hex strings, decoded). */
function pdfText(pdf: Buffer): string {
  const lines: string[] = [];
  for (const array of pdf.toString('latin1').matchAll(/\[([^\]]*)\]\s*TJ/g)) {
    lines.push([...array[1]!.matchAll(/<([0-9a-fA-F]*)>/g)].map((hex) => Buffer.from(hex[1]!, 'hex').toString('latin1')).join(''));
  }
  return lines.join('\n');
}

describe('research sources: search API, fetched and verified', () => {
  let context: TestContext;
  let upstream: ModelUpstream;
  let pages: RepoHost;
  let search: http.Server;
  const searches: { q: string | null; count: string | null; auth: string | undefined }[] = [];
  let alice: TestCustomer;
  let base = '';

  beforeAll(async () => {
    const certificate = makeCertificate();
    pages = await startRepoHost(certificate);
    base = `https://127.0.0.1:${pages.port}`;
    pages.files.set(
      '/rayleigh',
      Buffer.from(
        '<html><head><style>p{}</style></head><body><p>The sky is blue because of <b>Rayleigh scattering</b> of sunlight.</p></body></html>',
      ),
    );
    pages.files.set('/other', Buffer.from('<p>Nothing about colours here.</p>'));
    search = http.createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://search');
      searches.push({ q: url.searchParams.get('q'), count: url.searchParams.get('count'), auth: request.headers.authorization });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          results: [
            { url: `${base}/rayleigh`, title: 'Why the sky is blue', snippet: 'Rayleigh scattering of sunlight.' },
            { url: `${base}/other`, title: 'Colours', snippet: 'Other page.' },
            { url: 'javascript:alert(1)', title: 'dropped' },
          ],
        }),
      );
    });
    await new Promise<void>((resolve) => search.listen(0, '127.0.0.1', resolve));
    upstream = await startModelUpstream();
    upstream.setDefault(async (request) => {
      const system = systemOf(request);
      if (system.includes('You plan a research report')) {
        return { kind: 'text', text: '{"title": "Blue sky", "sections": ["Physics"]}', usage: USAGE };
      }
      return {
        kind: 'text',
        text:
          `Sunlight scatters. ${base}/rayleigh "The sky is blue because of Rayleigh scattering of sunlight."\n` +
          `Colours vary. ${base}/other "Violet light dominates the evening sky everywhere."\n` +
          `A lost page: ${base}/gone "This page is not there any more at all."\n` +
          `Metadata: https://169.254.169.254/latest "instance credentials live here."`,
        usage: USAGE,
      };
    });
    context = await billingContext({
      upstreamUrl: upstream.url,
      config: {
        desktop: {
          chat: {
            freeDailyMessages: 0,
            researchMaxSections: 2,
            researchSources: {
              searchUrl: `http://127.0.0.1:${(search.address() as AddressInfo).port}/search`,
              searchApiKey: 'search-key-123',
              maxResults: 3,
              allowHosts: ['127.0.0.1'],
              extraCaFile: certificate.certFile,
            },
          },
        },
      },
    });
    alice = await newCustomer(context);
    await credit(context, alice.customerId, 5_000_000);
  });
  afterAll(async () => {
    await context.services.desktop.chatResearch.idle();
    await expectLedgerConsistent(context);
    await context.close();
    await upstream.close();
    await pages.close();
    await new Promise<void>((resolve) => search.close(() => resolve()));
  });

  it('searches, hands the results to the section call, and marks each cited source verified or not in the message and the PDF', async () => {
    const chat = (
      await context.app.inject({
        method: 'POST',
        url: '/api/v1/desktop-chat/conversations',
        headers: bearer(alice.systemToken),
        payload: {},
      })
    ).json().id as number;
    const calls = upstream.requests.length;
    const started = await context.app.inject({
      method: 'POST',
      url: `/api/v1/desktop-chat/conversations/${chat}/messages`,
      headers: bearer(alice.systemToken),
      payload: { content: 'Why is the sky blue?', mode: 'research' },
    });
    expect(started.statusCode, started.body).toBe(202);
    const reply = started.json().messages[1];
    await context.services.desktop.chatResearch.idle();

    expect(searches).toEqual([{ q: 'Why is the sky blue?', count: '3', auth: 'Bearer search-key-123' }]);
    const sectionCall = upstream.requests.slice(calls).find((request) => systemOf(request).includes('Write the section "Physics"'))!;
    expect(systemOf(sectionCall)).toContain(`${base}/rayleigh`);
    expect(systemOf(sectionCall)).toContain('Why the sky is blue');
    expect(systemOf(sectionCall)).not.toContain('javascript:');

    const messages = (
      await context.app.inject({
        method: 'GET',
        url: `/api/v1/desktop-chat/conversations/${chat}/messages`,
        headers: bearer(alice.systemToken),
      })
    ).json().data as { id: number; content: string; research: { status: string; source_checks: unknown[] } | null }[];
    const done = messages.find((message) => message.id === reply.id)!;
    expect(done.research!.status).toBe('completed');
    expect(done.research!.source_checks).toEqual([
      { url: `${base}/rayleigh`, verified: true, reason: null },
      { url: `${base}/other`, verified: false, reason: 'quote_not_found' },
      { url: `${base}/gone`, verified: false, reason: 'unreachable' },
      { url: 'https://169.254.169.254/latest', verified: false, reason: 'unreachable' },
    ]);
    // The pages were fetched through the safe client; the metadata address never was.
    expect(pages.requests).toEqual(expect.arrayContaining(['/rayleigh', '/other', '/gone']));
    expect(done.content).toContain(`${base}/rayleigh (verified)`);
    expect(done.content).toContain(`${base}/other (not verified: quote_not_found)`);

    const pdf = await context.app.inject({
      method: 'GET',
      url: `/api/v1/desktop-chat/messages/${reply.id}/research.pdf`,
      headers: bearer(alice.systemToken),
    });
    expect(pdf.statusCode).toBe(200);
    const text = pdfText(pdf.rawPayload);
    expect(text).toContain('verified: "The sky is blue because of Rayleigh scattering of sunlight."');
    expect(text).toContain('not verified (the quoted passage is not on the page)');
    expect(text).toContain('not verified (could not be fetched)');
  });
});

describe('research with the model’s own web search', () => {
  it('asks a destination with web search to search when no search API is configured, and no other', async () => {
    const upstream = await startModelUpstream();
    upstream.setDefault(async (request) =>
      systemOf(request).includes('You plan a research report')
        ? { kind: 'text', text: '{"title": "T", "sections": ["S"]}', usage: USAGE }
        : { kind: 'text', text: 'No sources.', usage: USAGE },
    );
    const models = [
      ...billingConfig(upstream.url).models,
      { id: 'searcher', provider: 'scripted', upstreamModel: 'scripted-search', rateCard: 'standard', capabilities: { webSearch: true } },
    ];
    const context = await billingContext({ upstreamUrl: upstream.url, config: { models, desktop: { chat: { freeDailyMessages: 0 } } } });
    try {
      const alice = await newCustomer(context);
      await credit(context, alice.customerId, 5_000_000);
      const sectionBodyFor = async (model: string) => {
        const chat = (
          await context.app.inject({
            method: 'POST',
            url: '/api/v1/desktop-chat/conversations',
            headers: bearer(alice.systemToken),
            payload: { model },
          })
        ).json();
        const calls = upstream.requests.length;
        const started = await context.app.inject({
          method: 'POST',
          url: `/api/v1/desktop-chat/conversations/${chat.id}/messages`,
          headers: bearer(alice.systemToken),
          payload: { content: 'Anything new?', mode: 'research' },
        });
        expect(started.statusCode, started.body).toBe(202);
        await context.services.desktop.chatResearch.idle();
        const section = upstream.requests.slice(calls).find((request) => systemOf(request).includes('Write the section'))!;
        return JSON.stringify(section.body);
      };
      expect(context.services.gateway.listModels().find((model) => model.id === 'searcher')!.capabilities.web_search).toBe(true);
      expect(await sectionBodyFor('searcher')).toMatch(/web_search/);
      expect(await sectionBodyFor('test-model')).not.toMatch(/web_search/);
    } finally {
      await context.services.desktop.chatResearch.idle();
      await context.close();
      await upstream.close();
    }
  });
});

/**
 * `npm run screenshots`: starts the service on a fresh SQLite data dir with demo data (a customer with a funded
 * wallet, keys, 30 days of billed calls against a local stand-in model API, payments, an inbox message and an
 * alert, and a project whose agent turn ran on the real app-server against the scripted model upstream), signs
 * in with Chromium (/usr/bin/chromium, or CHROMIUM_PATH) and writes PNGs of the main pages (Home's Get started with
 * a key made on the spot among them), the project's live agent view and the operator console (Customers, a
 * customer's Activity, Routing and prices) at desktop (1280 px) and phone (375 px) widths into docs/screenshots/.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { loadEnv } from '../src/config/env.js';
import { systemClock, type Clock } from '../src/kernel/clock.js';
import { deepFreeze, parseConfigFile, type AppConfig } from '../src/config/load-config.js';
import { buildApp } from '../src/http/app.js';
import { createServices } from '../src/services.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../test/fakes/model-upstream.js';
import { openBrowser, type BrowserSession } from '../test/helpers/chromium.js';

const DAY_MS = 86_400_000;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const outDir = path.join(root, 'docs', 'screenshots');
const OPERATOR = `demo-operator-${Math.random().toString(36).slice(2)}-0123456789abcdef`;
const EMAIL = 'ada@example.com';
const PASSWORD = 'demo password 1';
const PROJECT = 'landing page';

/** A minimal OpenAI-compatible model API: every chat completion answers a sentence with usage. */
async function startDemoModel(): Promise<{ url: string; close: () => Promise<void> }> {
  let call = 0;
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      call += 1;
      const model = (JSON.parse(body || '{}') as { model?: string }).model ?? 'demo';
      const usage = { prompt_tokens: 800 + ((call * 7919) % 2400), completion_tokens: 200 + ((call * 104729) % 900) };
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          id: `chatcmpl-${call}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model,
          choices: [{ index: 0, message: { role: 'assistant', content: 'Demo answer.' }, finish_reason: 'stop' }],
          usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The agent's model: writes README.md with a command, then says so once the command's output came back. */
function agentReply(request: RecordedRequest): Reply {
  const input = request.body?.input;
  const ran = Array.isArray(input) && input.some((item: { type?: string }) => item.type === 'function_call_output');
  return ran
    ? { kind: 'text', text: 'Added README.md with the page title. Next: the HTML skeleton.' }
    : {
        kind: 'tool_call',
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: "echo '# Landing page' > README.md" }),
      };
}

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-screenshots-'));
  const model = await startDemoModel();
  const agentModel = await startModelUpstream();
  agentModel.setDefault(agentReply);
  let offsetMs = 0;
  // The screenshots show days of history: the clock reads ahead of real time, its timers are the real ones.
  const clock: Clock = { ...systemClock, nowMs: () => Date.now() + offsetMs };
  const env = loadEnv({
    SWITCHYARD_DATA_DIR: dataDir,
    SWITCHYARD_STATIC_TOKEN: OPERATOR,
    SWITCHYARD_SECRET: `demo-secret-${'x'.repeat(40)}`,
    SWITCHYARD_LOG_LEVEL: 'error',
  });
  const file = parseConfigFile(
    {
      regions: [
        { id: 'london', name: 'London', apiBaseUrl: 'https://lon.switchyard.example/v1', healthUrl: `${model.url}/health` },
        { id: 'chicago', name: 'Chicago', apiBaseUrl: 'https://chi.switchyard.example/v1', healthUrl: `${model.url}/health` },
      ],
      rateCards: {
        standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 },
        mini: { inputMicrosPerMillion: 500_000, outputMicrosPerMillion: 2_000_000 },
      },
      providers: [
        { id: 'demo', kind: 'openai', baseUrl: `${model.url}/v1` },
        { id: 'demo-agent', kind: 'openai', baseUrl: `${agentModel.url}/v1`, apiKey: 'sk-demo' },
      ],
      models: [
        { id: 'gpt-demo', provider: 'demo', upstreamModel: 'gpt-demo', rateCard: 'standard' },
        { id: 'gpt-demo-mini', provider: 'demo', upstreamModel: 'gpt-demo-mini', rateCard: 'mini' },
        {
          id: 'gpt-demo-coder',
          provider: 'demo-agent',
          upstreamModel: 'gpt-demo-coder',
          rateCard: 'standard',
          capabilities: { responsesApi: true, tools: true },
        },
      ],
      // The agent runtime's default model is `power-ai`: it must speak the Responses API.
      aliases: { 'power-ai': 'gpt-demo-coder' },
      // No payment method here: Money says how credit arrives and whom to ask. The screenshots show every page:
      // self-service sign-up (the demo customer registers through the API, without the human check a browser
      // solves) and the promotions are switched on for them.
      accounts: { operatorContact: 'credit@operator.test', humanCheck: { requiredFor: [] }, registration: 'open' },
      promotions: { checkin: { enabled: true }, spinWheel: { enabled: true }, shareCredit: { enabled: true }, raffle: { enabled: true } },
    },
    process.env,
  );
  const config: AppConfig = deepFreeze({
    ...file,
    env,
    secret: env.secret ?? `demo-secret-${'x'.repeat(40)}`,
    publicBaseUrl: 'http://localhost:8080',
  }) as AppConfig;
  const services = await createServices(config, { logger: pino({ level: 'silent' }), clock });
  const app = await buildApp(services);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const operator = { authorization: `Bearer ${OPERATOR}` };
  let browser: BrowserSession | undefined;
  try {
    const registered = await app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: EMAIL, password: PASSWORD, name: 'Ada Lovelace' },
    });
    const { customer, api_key: systemToken } = registered.json() as { customer: { id: number }; api_key: string };
    const asCustomer = { authorization: `Bearer ${systemToken}` };
    await app.inject({
      method: 'POST',
      url: `/api/admin/customers/${customer.id}/wallet/adjust`,
      headers: { ...operator, 'idempotency-key': 'demo-credit' },
      payload: { amount_micros: 50_000_000, reason: 'Welcome credit' },
    });
    const keys: string[] = [];
    for (const [name, policy] of [
      ['laptop', {}],
      [
        'ci runner',
        { allowed_surfaces: ['gateway'], allowed_models: ['gpt-demo-mini'], spending_limit_micros: 5_000_000, spending_period: 'month' },
      ],
    ] as const) {
      const created = await app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers: asCustomer, payload: { name, ...policy } });
      keys.push((created.json() as { key: string }).key);
    }
    for (let day = 29; day >= 0; day--) {
      offsetMs = -day * DAY_MS;
      const calls = 1 + ((day * 5) % 4);
      for (let i = 0; i < calls; i++) {
        const [key, modelId] = i % 2 === 0 ? [keys[0]!, 'gpt-demo'] : [keys[1]!, 'gpt-demo-mini'];
        await app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: { authorization: `Bearer ${key}` },
          payload: { model: modelId, messages: [{ role: 'user', content: 'Hello' }] },
        });
      }
    }
    offsetMs = 0;
    await app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operator,
      payload: {
        customer_id: customer.id,
        title: 'Welcome to Switchyard',
        body: 'Your wallet has $50 of welcome credit. Create a key under API keys to start.',
      },
    });
    await app.inject({
      method: 'POST',
      url: '/api/admin/messages',
      headers: operator,
      payload: { all: true, title: 'New region: Chicago', body: 'Pick the region closest to you in Settings.' },
    });
    await app.inject({ method: 'POST', url: '/api/v1/daily-checkin/claim', headers: asCustomer, payload: {} });
    const spare = await app.inject({ method: 'POST', url: '/api/v1/me/api-keys', headers: asCustomer, payload: { name: 'old script' } });
    await app.inject({ method: 'DELETE', url: `/api/v1/me/api-keys/${(spare.json() as { id: number }).id}`, headers: asCustomer });

    // A project whose agent turn ran to its end on the real app-server: the live view replays its transcript.
    const project = await app.inject({ method: 'POST', url: '/api/v1/projects', headers: asCustomer, payload: { name: PROJECT } });
    const projectId = (project.json() as { id: string }).id;
    await app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: asCustomer, payload: {} });
    const turn = await app.inject({
      method: 'POST',
      url: `/api/v1/projects/${projectId}/turns`,
      headers: { ...asCustomer, 'idempotency-key': 'demo-turn' },
      payload: { input: 'Start the landing page: add a README with its title.' },
    });
    if (turn.statusCode !== 202) throw new Error(`turn start: ${turn.statusCode} ${turn.body}`);
    for (let waited = 0; ; waited += 200) {
      const thread = await app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}/thread`, headers: asCustomer });
      const turns = (thread.json() as { thread: { turns?: { status: string }[] } | null }).thread?.turns ?? [];
      if (turns.length > 0 && turns.every((candidate) => candidate.status !== 'inProgress')) {
        if (turns.at(-1)!.status !== 'completed') throw new Error(`the demo turn ended ${turns.at(-1)!.status}`);
        break;
      }
      if (waited > 120_000) throw new Error('the demo turn did not end within two minutes');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    fs.mkdirSync(outDir, { recursive: true });
    browser = await openBrowser({ baseURL: url });
    const { page } = browser;
    // `idle: false` for a page that keeps a connection open (the live view's event stream): its `ready` waits.
    const shoot = async (name: string, ready: () => Promise<unknown>, { idle = true } = {}) => {
      for (const [suffix, width, height] of [
        ['desktop', 1280, 900],
        ['phone', 375, 812],
      ] as const) {
        await page.setViewportSize({ width, height });
        await ready();
        if (idle) await page.waitForLoadState('networkidle');
        await page.waitForFunction('!document.querySelector(\'[aria-busy="true"]\')');
        const target = path.join(outDir, `${name}-${suffix}.png`);
        await page.screenshot({ path: target, fullPage: true });
        process.stdout.write(`screenshots: ${path.relative(root, target)}\n`);
      }
    };
    await page.goto('/login.html');
    await shoot('login', () => page.getByRole('heading', { name: 'Sign in to Switchyard' }).waitFor());
    await page.getByLabel('Email or username').fill(EMAIL);
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/dashboard\.html/);
    for (const [view, heading] of [
      ['home', 'Home'],
      ['keys', 'API keys'],
      ['activity', 'Activity'],
      ['money', 'Money'],
      ['promotions', 'Promotions'],
      ['settings', 'Settings'],
    ] as const) {
      await page.goto(`/dashboard.html#/${view}`);
      await shoot(view, () => page.getByRole('heading', { level: 1, name: heading }).waitFor());
    }
    // Get started with a key made on the spot: the snippet carries it.
    await page.goto('/dashboard.html#/home');
    await page.getByRole('button', { name: 'Create a key' }).click();
    await shoot('get-started', () => page.getByTestId('get-started-key').waitFor());

    await page.goto(`/dashboard.html#/projects/${encodeURIComponent(projectId)}`);
    await shoot(
      'project',
      async () => {
        await page.getByRole('heading', { level: 1, name: PROJECT }).waitFor();
        await page.getByTestId('stream-status').filter({ hasText: 'Live' }).waitFor({ timeout: 60_000 });
        await page.getByTestId('transcript').getByText('Turn completed').waitFor({ timeout: 60_000 });
        await page.getByRole('button', { name: 'README.md' }).waitFor({ timeout: 30_000 });
        await page.getByTestId('project-balance').filter({ hasText: '$' }).waitFor();
      },
      { idle: false },
    );

    // The operator console, signed in with the operator token through its own form.
    await page.goto('/admin.html');
    await page.getByLabel('Operator token or managed operator key').fill(OPERATOR);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: EMAIL }).click();
    await shoot('admin-customers', () => page.getByTestId('customer-balance').waitFor());
    await page.getByRole('button', { name: 'Activity' }).click();
    await shoot('admin-activity', () => page.getByTestId('customer-activity').getByTestId('activity-row').first().waitFor());
    await page.getByRole('button', { name: 'Wallets and keys' }).click();
    await page.getByRole('link', { name: 'Routing and prices' }).click();
    await shoot('admin-routing', () => page.getByTestId('aliases').filter({ hasText: 'gpt-demo-coder' }).waitFor());
  } finally {
    await browser?.close();
    await app.close();
    await services.close();
    await model.close();
    await agentModel.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

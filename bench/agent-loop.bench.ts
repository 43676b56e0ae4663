/**
 * The agent loop against the raw app-server, in one run and against the same scripted upstream: (a) the pinned
 * app-server over stdio (spawn → initialize → thread/start → turn/start → turn/completed) with the same model
 * catalogue, its provider pointing straight at the upstream; (b) the same turns through the service (HTTP turn start
 * → SSE turn/completed, each model request billed through the service's own /v1). Text turns and shell-command
 * turns (the upstream calls `exec_command`, then answers with text), after warm-ups, median and p90; plus the first
 * open of a project (app-server start and thread) against the raw cold start to a first thread.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createParser } from 'eventsource-parser';
import { AppServerClient } from '../src/appserver/client.js';
import { appServerArgs, appServerEnv } from '../src/appserver/launch.js';
import { defaultCodexBinary } from '../src/agent/runtime-config.js';
import type { RunningService } from '../src/main.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../test/fakes/model-upstream.js';
import { round, startBenchService, type BenchReport } from './harness.js';

const WARMUPS = 3;
const TURNS = 20;
const COLD_STARTS = 3;

function hasToolOutput(request: RecordedRequest): boolean {
  const input = request.body?.input;
  return Array.isArray(input) && input.some((item: { type?: string }) => item.type === 'function_call_output');
}

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

async function json(response: Response, expected: number): Promise<any> {
  if (response.status !== expected) throw new Error(`${response.url}: ${response.status} ${await response.text()}`);
  return response.json();
}

/** The raw app-server: one process, its own Codex home, the provider straight at the upstream. */
class RawAppServer {
  private readonly completed = new Map<string, () => void>();
  client!: AppServerClient;
  threadId = '';

  static async start(settings: Parameters<typeof appServerArgs>[0], home: string, cwd: string): Promise<{ server: RawAppServer; coldStartMs: number }> {
    const server = new RawAppServer();
    fs.mkdirSync(path.join(home, 'tmp'), { recursive: true });
    const startedAt = performance.now();
    server.client = new AppServerClient({
      binary: defaultCodexBinary(),
      args: appServerArgs(settings),
      env: appServerEnv(home, 'sk-bench'),
      cwd: home,
      requestTimeoutMs: 60_000,
      lineLengthMax: 64 * 1024 * 1024,
      stopGraceMs: 2_000,
      clientName: 'bench',
      clientVersion: '1',
      logger: pino({ level: 'silent' }),
      onNotification: (notification) => {
        if (notification.method !== 'turn/completed') return;
        const turnId = (notification.params as { turn: { id: string } }).turn.id;
        server.completed.get(turnId)?.();
      },
      onServerRequest: async () => ({ decision: 'accept' }),
      onExit: () => undefined,
    });
    await server.client.start();
    const started = (await server.client.call('thread/start', {
      cwd,
      model: settings.defaultModel,
      approvalPolicy: settings.approvalPolicy as 'never',
      sandbox: settings.sandbox as 'danger-full-access',
      config: { model_reasoning_effort: settings.reasoningEffort, web_search: settings.webSearch },
    })) as { thread: { id: string } };
    server.threadId = started.thread.id;
    return { server, coldStartMs: performance.now() - startedAt };
  }

  async turn(text: string): Promise<number> {
    const startedAt = performance.now();
    let done!: () => void;
    const finished = new Promise<void>((resolve) => (done = resolve));
    const result = (await this.client.call('turn/start', { threadId: this.threadId, input: [{ type: 'text', text, text_elements: [] }] })) as { turn: { id: string } };
    this.completed.set(result.turn.id, done);
    await finished;
    this.completed.delete(result.turn.id);
    return performance.now() - startedAt;
  }

  async stop(): Promise<void> {
    await this.client.stop();
  }
}

/** One SSE subscriber on the project's events, resolving turn ids as `turn/completed` frames arrive. */
async function turnCompletions(url: string, token: string, signal: AbortSignal): Promise<Map<string, () => void>> {
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal });
  const parser = createParser({
    onEvent: (event) => {
      if (event.event !== 'turn/completed') return;
      const turnId = (JSON.parse(event.data) as { turn: { id: string } }).turn.id;
      const resolve = waiting.get(turnId);
      if (resolve) resolve();
      else early.add(turnId);
    },
  });
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) parser.feed(decoder.decode(chunk, { stream: true }));
    } catch {
      // aborted at the end of the run
    }
  })();
  // A completion read before its waiter registered (very fast turns) resolves at once.
  return new Proxy(waiting, {
    get(target, property) {
      if (property === 'set') {
        return (turnId: string, resolve: () => void) => {
          if (early.delete(turnId)) resolve();
          else target.set(turnId, resolve);
          return target;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function stats(values: number[]): { median: number; p90: number } {
  return { median: percentile(values, 0.5), p90: percentile(values, 0.9) };
}

export default async function agentLoopBench(report: BenchReport): Promise<void> {
  report.section('Agent loop: the service against the raw app-server over stdio');
  const upstream = await startModelUpstream({ defaultReply: { kind: 'text', text: 'Scripted answer for the bench.' } });
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'switchyard-agent-loop-'));
  const configFile = path.join(dataDir, 'config.json');
  fs.writeFileSync(
    configFile,
    JSON.stringify({
      providers: [{ id: 'scripted', kind: 'openai', baseUrl: `${upstream.url}/v1`, apiKey: 'sk-bench' }],
      models: [{ id: 'scripted-coder', provider: 'scripted', upstreamModel: 'scripted-model', capabilities: { responsesApi: true } }],
      aliases: { 'power-ai': 'scripted-coder' },
      rateCards: { standard: { inputMicrosPerMillion: 4_000_000, outputMicrosPerMillion: 24_000_000 } },
    }),
  );
  let running: RunningService | null = null;
  const raws: RawAppServer[] = [];
  const abort = new AbortController();
  const textReply = (): Reply => ({ kind: 'text', text: 'Scripted answer for the bench.' });
  const shellReply = (workdir: string) => (request: RecordedRequest): Reply =>
    hasToolOutput(request) ? { kind: 'text', text: 'Done.' } : { kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo bench > bench.txt', workdir }) };
  try {
    running = await startBenchService(dataDir, { SWITCHYARD_CONFIG: configFile });
    const { services } = running;
    const base = running.url;
    const agent = services.config.agent;
    const created = await services.customers.create({ email: 'agent-loop-bench@example.test' });
    const token = created.systemToken.key;
    await services.billing.adjust({ customerId: created.customer.id, amountMicros: 1_000_000_000, reason: 'agent bench', wallet: 'token', idempotencyKey: 'agent-loop-bench' });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // First open of a project: the service starts the customer's app-server and a thread.
    const firstOpens: number[] = [];
    const projects: { id: string }[] = [];
    for (let index = 0; index < COLD_STARTS; index += 1) {
      const project = await json(await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: `bench ${index}` }) }), 201);
      // Each measured first open starts a new app-server: the previous one is stopped first.
      if (index > 0) await services.agent.supervisor.stop(created.customer.id);
      const openedAt = performance.now();
      await json(await fetch(`${base}/api/v1/projects/${project.id}/open`, { method: 'POST', headers, body: '{}' }), 200);
      firstOpens.push(performance.now() - openedAt);
      projects.push(project);
    }
    const project = projects[projects.length - 1]!;
    const workspaceDir = (await services.projects.list(created.customer.id)).find((candidate) => candidate.id === project.id)!.workspaceDir;

    // The raw app-server, same catalogue file and settings, provider straight at the upstream (no bubblewrap around it).
    const catalogFile = path.join(dataDir, 'codex-homes', String(created.customer.id), 'model-catalog.json');
    const settings = {
      serviceUrl: upstream.url,
      catalogFile,
      defaultModel: agent.defaultModel,
      webSearch: agent.webSearch,
      reasoningEffort: agent.reasoningEffort,
      approvalPolicy: agent.approvalPolicy,
      sandbox: agent.sandbox,
      providerRetries: agent.providerRetries,
    };
    const rawWorkspace = fs.mkdtempSync(path.join(dataDir, 'raw-workspace-'));
    const coldStarts: number[] = [];
    for (let index = 0; index < COLD_STARTS; index += 1) {
      const { server, coldStartMs } = await RawAppServer.start(settings, path.join(dataDir, `raw-home-${index}`), rawWorkspace);
      coldStarts.push(coldStartMs);
      raws.push(server);
      if (index < COLD_STARTS - 1) await server.stop();
    }
    const raw = raws[raws.length - 1]!;

    const completions = await turnCompletions(`${base}/api/v1/projects/${project.id}/events`, token, abort.signal);
    const serviceTurn = async (): Promise<number> => {
      const startedAt = performance.now();
      const started = await json(await fetch(`${base}/api/v1/projects/${project.id}/turns`, { method: 'POST', headers, body: JSON.stringify({ input: 'bench turn' }) }), 202);
      await new Promise<void>((resolve) => completions.set(started.turn_id as string, resolve));
      return performance.now() - startedAt;
    };
    const measure = async (turn: () => Promise<number>): Promise<number[]> => {
      for (let index = 0; index < WARMUPS; index += 1) await turn();
      const times: number[] = [];
      for (let index = 0; index < TURNS; index += 1) times.push(await turn());
      return times;
    };

    upstream.setDefault(textReply);
    const rawText = await measure(() => raw.turn('bench turn'));
    const serviceText = await measure(serviceTurn);
    upstream.setDefault(shellReply(rawWorkspace));
    const rawShell = await measure(() => raw.turn('bench turn'));
    upstream.setDefault(shellReply(workspaceDir));
    const serviceShell = await measure(serviceTurn);
    upstream.setDefault(textReply);

    const rows: Record<string, string | number>[] = [];
    const ratios: string[] = [];
    const add = (what: string, service: number[], baseline: number[], target: number) => {
      const s = stats(service);
      const b = stats(baseline);
      rows.push({ what, 'service median ms': round(s.median, 1), 'service p90 ms': round(s.p90, 1), 'raw median ms': round(b.median, 1), 'raw p90 ms': round(b.p90, 1), 'median ratio': round(s.median / b.median, 2) });
      ratios.push(`**${what}: ${round(s.median / b.median, 2)}×** the raw app-server (target ≤ ${target}×)`);
    };
    add(`text turn (${TURNS} after ${WARMUPS} warm-ups)`, serviceText, rawText, 1.15);
    add(`shell-command turn, two model requests (${TURNS} after ${WARMUPS} warm-ups)`, serviceShell, rawShell, 1.1);
    add(`first open of a project vs raw cold start to a first thread (${COLD_STARTS} each)`, firstOpens, coldStarts, 1.3);
    report.line(
      `Service: HTTP POST /turns → SSE turn/completed, every model request billed through the service's /v1, app-server isolation \`${agent.isolation}\` (bubblewrap when available). Raw: app-server ${'0.147.0'} over stdio without bubblewrap around it, same catalogue, settings (sandbox \`${agent.sandbox}\`), provider straight at the scripted upstream.`,
    );
    report.table(rows);
    for (const line of ratios) report.line(line);
  } finally {
    abort.abort();
    for (const raw of raws) await raw.stop().catch(() => undefined);
    await running?.stop();
    await upstream.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

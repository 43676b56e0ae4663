/**
 * The agent loop against the raw app-server, in one run and against the same scripted upstream: (a) the pinned
 * app-server over stdio (spawn → initialize → thread/start → turn/start → turn/completed) with the same model
 * catalogue, its provider pointing straight at the upstream; (b) the same turns through the service (HTTP turn start
 * → SSE turn/completed, each model request billed through the service's own /v1). Text turns and shell-command
 * turns (the upstream calls `exec_command`, then answers with text), after warm-ups, median and p90; plus the first
 * open of a project (app-server start and thread) against the raw cold start to a first thread.
 */
import fs from 'node:fs';
import type http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Session } from 'node:inspector/promises';
import { performance } from 'node:perf_hooks';
import pino from 'pino';
import { createParser } from 'eventsource-parser';
import { AppServerClient } from '../src/appserver/client.js';
import { appServerArgs, appServerEnv } from '../src/appserver/launch.js';
import { AppServerSandbox } from '../src/appserver/sandbox.js';
import { SANDBOX_SERVICE_URL } from '../src/appserver/sandbox-network.js';
import { codexDirs, defaultCodexBinary, hiddenServicePaths } from '../src/agent/runtime-config.js';
import type { RunningService } from '../src/main.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../test/fakes/model-upstream.js';
import { round, startBenchService, type BenchReport } from './harness.js';

const WARMUPS = 3;
const TURNS = 20;
const COLD_STARTS = 3;

/**
 * Timestamps along one turn (performance.now(); the bench, the service and the scripted upstream share the process).
 * `begin(variant)` opens the record of one measured turn; the first occurrence of each mark counts.
 */
class TurnTrace {
  private readonly turns: { variant: string; marks: Map<string, number> }[] = [];
  private current: Map<string, number> | null = null;

  begin(variant: string): void {
    this.current = new Map([['start', performance.now()]]);
    this.turns.push({ variant, marks: this.current });
  }

  mark(name: string): void {
    if (this.current && !this.current.has(name)) this.current.set(name, performance.now());
  }

  end(): void {
    this.current = null;
  }

  /** Every recorded turn, marks as milliseconds since its start (`BENCH_TRACE_FILE`). */
  toJSON(): { variant: string; marks: Record<string, number> }[] {
    return this.turns.map((turn) => ({
      variant: turn.variant,
      marks: Object.fromEntries([...turn.marks].map(([name, at]) => [name, round(at - turn.marks.get('start')!, 2)])),
    }));
  }

  /** Median of `to − from` over the variant's turns that have both marks. */
  median(variant: string, from: string, to: string): number | null {
    const spans = this.turns
      .filter((turn) => turn.variant === variant && turn.marks.has(from) && turn.marks.has(to))
      .map((turn) => turn.marks.get(to)! - turn.marks.get(from)!);
    return spans.length === 0 ? null : percentile(spans, 0.5);
  }
}

/** `BENCH_CPU_PROFILE_DIR=dir`: a CPU profile of this thread per measured phase, written as `<dir>/<phase>.cpuprofile`. */
async function profiled<T>(phase: string, run: () => Promise<T>): Promise<T> {
  const directory = process.env.BENCH_CPU_PROFILE_DIR;
  if (!directory) return run();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  try {
    return await run();
  } finally {
    const { profile } = await session.post('Profiler.stop');
    fs.mkdirSync(directory, { recursive: true });
    fs.writeFileSync(path.join(directory, `${phase}.cpuprofile`), JSON.stringify(profile));
    session.disconnect();
  }
}

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

/** A Unix socket (owned by `uid`) whose connections are piped to the upstream's TCP port. */
async function upstreamBridge(socket: string, upstream: URL, uid: number | null): Promise<{ socket: string; close: () => Promise<void> }> {
  fs.mkdirSync(path.dirname(socket), { recursive: true });
  const server = net.createServer((client) => {
    const target = net.connect({ host: upstream.hostname, port: Number(upstream.port) });
    for (const end of [client, target]) end.on('error', () => (client.destroy(), target.destroy()));
    client.pipe(target).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  if (uid !== null) fs.chownSync(socket, uid, uid);
  return { socket, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

/** How to start one raw app-server: the bare command, or the same wrapped in the service's bubblewrap sandbox. */
type RawLaunch = (
  home: string,
  args: string[],
  env: NodeJS.ProcessEnv,
) => Promise<{ binary: string; args: string[]; env: NodeJS.ProcessEnv }>;

/** The raw app-server: one process, its own Codex home, the provider straight at the upstream. */
class RawAppServer {
  private readonly completed = new Map<string, () => void>();
  client!: AppServerClient;
  threadId = '';

  private constructor(private readonly trace: TurnTrace) {}

  static async start(
    settings: Parameters<typeof appServerArgs>[0],
    home: string,
    cwd: string,
    launch: RawLaunch,
    trace: TurnTrace,
  ): Promise<{ server: RawAppServer; coldStartMs: number }> {
    const server = new RawAppServer(trace);
    fs.mkdirSync(path.join(home, 'tmp'), { recursive: true });
    // The catalogue is copied into the home: a sandboxed app-server sees its own home, not the service's.
    const catalogFile = path.join(home, 'model-catalog.json');
    fs.copyFileSync(settings.catalogFile, catalogFile);
    const startedAt = performance.now();
    const command = await launch(home, appServerArgs({ ...settings, catalogFile }), appServerEnv(home, 'sk-bench'));
    server.client = new AppServerClient({
      binary: command.binary,
      args: command.args,
      env: command.env,
      cwd: home,
      requestTimeoutMs: 60_000,
      lineLengthMax: 64 * 1024 * 1024,
      stopGraceMs: 2_000,
      clientName: 'bench',
      clientVersion: '1',
      logger: pino({ level: 'silent' }),
      onNotification: (notification) => {
        trace.mark(`notify ${notification.method}`);
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
    const result = (await this.client.call('turn/start', {
      threadId: this.threadId,
      input: [{ type: 'text', text, text_elements: [] }],
    })) as { turn: { id: string } };
    this.trace.mark('turns answered');
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
async function turnCompletions(url: string, token: string, signal: AbortSignal, onCompleted: () => void): Promise<Map<string, () => void>> {
  const waiting = new Map<string, () => void>();
  const early = new Set<string>();
  const response = await fetch(url, { headers: { authorization: `Bearer ${token}` }, signal });
  const parser = createParser({
    onEvent: (event) => {
      if (event.event !== 'turn/completed') return;
      onCompleted();
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

/** One row per stretch of a text turn: medians of the measured turns, service against the raw app-servers. */
function breakdown(
  trace: TurnTrace,
  variants: { service: string; raws: { label: string; variant: string }[] },
): Record<string, string | number>[] {
  const cell = (value: number | null) => (value === null ? '' : round(value, 1));
  const serviceRows: [string, string, string][] = [
    ['POST /turns → 202 (turn start path, incl. app-server turn/start)', 'start', 'turns answered'],
    ['POST /turns → turn/started notification reaches the service', 'start', 'notify turn/started'],
    ['POST /turns → model request reaches /v1/responses', 'start', 'gateway request'],
    ['/v1/responses → upstream receives it (gateway in: auth, hold, translation)', 'gateway request', 'upstream'],
    ['upstream receives → /v1/responses answer finished (gateway out, settlement off the path)', 'upstream', 'gateway finished'],
    ['/v1 answer finished → turn/completed notification (app-server)', 'gateway finished', 'notify turn/completed'],
    ['turn/completed notification → committed to the event log', 'notify turn/completed', 'commit turn/completed'],
    ['committed → SSE frame parsed by the client', 'commit turn/completed', 'sse'],
    ['whole turn', 'start', 'done'],
  ];
  const rows: Record<string, string | number>[] = serviceRows.map(([what, from, to]) => ({
    'service (median ms)': what,
    ms: cell(trace.median(variants.service, from, to)),
  }));
  for (const raw of variants.raws) {
    rows.push({
      'service (median ms)': `${raw.label}: turn/start → answered`,
      ms: cell(trace.median(raw.variant, 'start', 'turns answered')),
    });
    rows.push({
      'service (median ms)': `${raw.label}: turn/start → upstream receives the model request`,
      ms: cell(trace.median(raw.variant, 'start', 'upstream')),
    });
    rows.push({
      'service (median ms)': `${raw.label}: upstream receives → turn/completed notification`,
      ms: cell(trace.median(raw.variant, 'upstream', 'notify turn/completed')),
    });
    rows.push({ 'service (median ms)': `${raw.label}: whole turn`, ms: cell(trace.median(raw.variant, 'start', 'done')) });
  }
  return rows;
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
  const closers: (() => Promise<void>)[] = [];
  const abort = new AbortController();
  const trace = new TurnTrace();
  const textReply = (request: RecordedRequest): Reply => {
    void request;
    trace.mark('upstream');
    return { kind: 'text', text: 'Scripted answer for the bench.' };
  };
  const shellReply =
    (workdir: string) =>
    (request: RecordedRequest): Reply => {
      trace.mark('upstream');
      return hasToolOutput(request)
        ? { kind: 'text', text: 'Done.' }
        : { kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo bench > bench.txt', workdir }) };
    };
  try {
    running = await startBenchService(dataDir, { SWITCHYARD_CONFIG: configFile });
    const { services } = running;
    const base = running.url;
    const agent = services.config.agent;
    const created = await services.customers.create({ email: 'agent-loop-bench@example.test' });
    const token = created.systemToken.key;
    await services.billing.adjust({
      customerId: created.customer.id,
      amountMicros: 1_000_000_000,
      reason: 'agent bench',
      wallet: 'token',
      idempotencyKey: 'agent-loop-bench',
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

    // Marks along a service turn: the HTTP requests as the service's server sees them, every app-server
    // notification as the runtime receives it, every event as the log commits it.
    running.app.server.prependListener('request', (request: http.IncomingMessage, response: http.ServerResponse) => {
      const url = request.url ?? '';
      if (process.env.BENCH_TRACE_FILE) {
        const at = performance.now();
        trace.mark(`http ${request.method} ${url.split('?')[0]} @${Math.round(at)}`);
        response.once('finish', () => trace.mark(`http done ${request.method} ${url.split('?')[0]} @${Math.round(at)}`));
      }
      const name = url.startsWith('/v1/responses') ? 'gateway' : request.method === 'POST' && url.endsWith('/turns') ? 'turns' : null;
      if (name === null) return;
      trace.mark(`${name} request`);
      response.once('finish', () => trace.mark(name === 'turns' ? 'turns answered' : 'gateway finished'));
    });
    const router = services.agent.router;
    const handleNotification = router.handleNotification.bind(router);
    router.handleNotification = (customerId, notification) => {
      trace.mark(`notify ${notification.method}`);
      handleNotification(customerId, notification);
    };

    // First open of a project: the service starts the customer's app-server and a thread.
    const firstOpens: number[] = [];
    const projects: { id: string }[] = [];
    for (let index = 0; index < COLD_STARTS; index += 1) {
      const project = await json(
        await fetch(`${base}/api/v1/projects`, { method: 'POST', headers, body: JSON.stringify({ name: `bench ${index}` }) }),
        201,
      );
      // Each measured first open starts a new app-server: the previous one is stopped first.
      if (index > 0) await services.agent.supervisor.stop(created.customer.id);
      const openedAt = performance.now();
      await json(await fetch(`${base}/api/v1/projects/${project.id}/open`, { method: 'POST', headers, body: '{}' }), 200);
      firstOpens.push(performance.now() - openedAt);
      projects.push(project);
    }
    const project = projects[projects.length - 1]!;
    const workspaceDir = (await services.projects.list(created.customer.id)).find((candidate) => candidate.id === project.id)!.workspaceDir;
    const unsubscribeCommits = services.projectEvents.subscribe(project.id, (event) => trace.mark(`commit ${event.type}`));

    // The raw app-server, same catalogue and settings, provider straight at the upstream: once bare, and once
    // inside the service's own bubblewrap sandbox (AppServerSandbox, as the service builds it) so the ratio can
    // compare like with like.
    const binary = agent.codexBinary ?? defaultCodexBinary();
    const sandbox = await AppServerSandbox.detect(
      {
        mode: agent.isolation,
        bwrap: agent.isolationBwrap,
        socat: agent.isolationSocat,
        uidFirst: agent.isolationUidFirst,
        uidCount: agent.isolationUidCount,
        hidden: hiddenServicePaths(services.config.env),
        codexDirs: codexDirs(binary),
      },
      pino({ level: 'silent' }),
    );
    const settings = {
      serviceUrl: upstream.url,
      catalogFile: path.join(dataDir, 'agent-runtime', String(created.customer.id), 'model-catalog.json'),
      defaultModel: agent.defaultModel,
      webSearch: agent.webSearch,
      reasoningEffort: agent.reasoningEffort,
      approvalPolicy: agent.approvalPolicy,
      sandbox: agent.sandbox,
      providerRetries: agent.providerRetries,
    };
    // The sandboxed raw app-server runs as a customer the service does not have (its own uid when root).
    const rawCustomerId = created.customer.id + 1;
    const rawRoot = path.join(dataDir, 'raw');
    const variants: { label: string; variant: string; launch: RawLaunch; workspace: string }[] = [
      {
        label: 'raw app-server, no sandbox',
        variant: 'raw',
        launch: async (_home, args, env) => ({ binary, args, env }),
        workspace: path.join(rawRoot, 'bare', 'workspace'),
      },
    ];
    if (sandbox.kind === 'bubblewrap') {
      // Its network namespace holds only its own loopback: the upstream is bridged in through a Unix socket, as the
      // service bridges itself in.
      const bridge = await upstreamBridge(path.join(rawRoot, 'upstream.sock'), new URL(upstream.url), sandbox.uidOf(rawCustomerId));
      closers.push(bridge.close);
      const providerArg = `model_providers.switchyard.base_url=${JSON.stringify(`${SANDBOX_SERVICE_URL}/v1`)}`;
      variants.push({
        label: 'raw app-server in bubblewrap',
        variant: 'raw-sandboxed',
        launch: (home, args, env) =>
          sandbox.prepare(
            rawCustomerId,
            { workspaceRoot: path.join(rawRoot, 'sandboxed'), codexHome: home },
            binary,
            args.map((arg) => (arg.startsWith('model_providers.switchyard.base_url=') ? providerArg : arg)),
            env,
            { model: bridge.socket, egress: null },
          ),
        workspace: path.join(rawRoot, 'sandboxed', 'workspace'),
      });
    }
    const coldStarts = new Map<string, number[]>();
    const rawServers = new Map<string, RawAppServer>();
    for (const variant of variants) {
      fs.mkdirSync(variant.workspace, { recursive: true });
      coldStarts.set(variant.variant, []);
      for (let index = 0; index < COLD_STARTS; index += 1) {
        const home = path.join(rawRoot, `${variant.variant}-home-${index}`);
        const { server, coldStartMs } = await RawAppServer.start(settings, home, variant.workspace, variant.launch, trace);
        coldStarts.get(variant.variant)!.push(coldStartMs);
        raws.push(server);
        if (index < COLD_STARTS - 1) await server.stop();
        else rawServers.set(variant.variant, server);
      }
    }

    const completions = await turnCompletions(`${base}/api/v1/projects/${project.id}/events`, token, abort.signal, () => trace.mark('sse'));
    const serviceTurn = async (): Promise<number> => {
      const startedAt = performance.now();
      const started = await json(
        await fetch(`${base}/api/v1/projects/${project.id}/turns`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ input: 'bench turn' }),
        }),
        202,
      );
      await new Promise<void>((resolve) => completions.set(started.turn_id as string, resolve));
      return performance.now() - startedAt;
    };
    // The variants take turns, one turn each per round, so a change of machine load hits all of them alike.
    type Contender = { variant: string; turn: () => Promise<number>; workdir: string };
    const contenders: Contender[] = [
      ...variants.map((variant) => ({
        variant: variant.variant,
        turn: () => rawServers.get(variant.variant)!.turn('bench turn'),
        workdir: variant.workspace,
      })),
      { variant: 'service', turn: serviceTurn, workdir: workspaceDir },
    ];
    const measure = async (kind: 'text' | 'shell'): Promise<Map<string, number[]>> => {
      const times = new Map<string, number[]>(contenders.map((contender) => [contender.variant, []]));
      for (let round = 0; round < WARMUPS + TURNS; round += 1) {
        for (const contender of contenders) {
          upstream.setDefault(kind === 'text' ? textReply : shellReply(contender.workdir));
          const measured = round >= WARMUPS;
          if (measured) trace.begin(`${kind} ${contender.variant}`);
          const elapsed = await contender.turn();
          trace.mark('done');
          trace.end();
          if (measured) times.get(contender.variant)!.push(elapsed);
        }
      }
      return times;
    };

    const text = await profiled('text-turns', () => measure('text'));
    const shell = await profiled('shell-turns', () => measure('shell'));
    upstream.setDefault(textReply);
    unsubscribeCommits();

    const rows: Record<string, string | number>[] = [];
    const ratios: string[] = [];
    const add = (what: string, service: number[], baselines: { label: string; times: number[] }[], target: number) => {
      const s = stats(service);
      const row: Record<string, string | number> = { what, 'service median ms': round(s.median, 1), 'service p90 ms': round(s.p90, 1) };
      const parts: string[] = [];
      for (const baseline of baselines) {
        const b = stats(baseline.times);
        row[`${baseline.label} median ms`] = round(b.median, 1);
        row[`${baseline.label} p90 ms`] = round(b.p90, 1);
        row[`ratio to ${baseline.label}`] = round(s.median / b.median, 2);
        parts.push(`${round(s.median / b.median, 2)}× ${baseline.label}`);
      }
      rows.push(row);
      ratios.push(`**${what}: ${parts.join(', ')}** (target ≤ ${target}×)`);
    };
    const short = (variant: string) => (variant === 'raw' ? 'raw' : 'raw in bwrap');
    const baselinesOf = (times: Map<string, number[]>) =>
      variants.map((variant) => ({ label: short(variant.variant), times: times.get(variant.variant)! }));
    add(`text turn (${TURNS} after ${WARMUPS} warm-ups)`, text.get('service')!, baselinesOf(text), 1.15);
    add(`shell-command turn, two model requests (${TURNS} after ${WARMUPS} warm-ups)`, shell.get('service')!, baselinesOf(shell), 1.1);
    add(
      `first open of a project vs raw cold start to a first thread (${COLD_STARTS} each)`,
      firstOpens,
      variants.map((variant) => ({ label: short(variant.variant), times: coldStarts.get(variant.variant)! })),
      1.3,
    );
    report.line(
      `Service: HTTP POST /turns → SSE turn/completed, every model request billed through the service's /v1, app-server isolation \`${agent.isolation}\` (${sandbox.kind}). Raw: app-server ${'0.147.0'} over stdio, same catalogue, settings (sandbox \`${agent.sandbox}\`), provider straight at the scripted upstream; "raw" runs it bare, "raw in bwrap" inside the service's own bubblewrap sandbox (\`AppServerSandbox.prepare\`)${sandbox.kind === 'bubblewrap' ? '' : ' — not measured: bubblewrap is unavailable here'}. The variants alternate turn by turn.`,
    );
    report.table(rows);
    for (const line of ratios) report.line(line);
    report.line(
      'Where the time of a text turn goes (timestamps in one process: HTTP server events, app-server notifications as the runtime receives them, event-log commits, the scripted upstream, the SSE client):',
    );
    if (process.env.BENCH_TRACE_FILE) fs.writeFileSync(process.env.BENCH_TRACE_FILE, JSON.stringify(trace, null, 1));
    report.table(
      breakdown(trace, {
        service: 'text service',
        raws: variants.map((variant) => ({ label: short(variant.variant), variant: `text ${variant.variant}` })),
      }),
    );
  } finally {
    abort.abort();
    for (const raw of raws) await raw.stop().catch(() => undefined);
    for (const close of closers) await close();
    await running?.stop();
    await upstream.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

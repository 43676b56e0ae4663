/**
 * The gateway hop of an agent's model request: a Codex-like ~40 kB Responses body (21 kB of instructions, a thread
 * of messages, tool calls and their outputs, Codex's tools with its hosted web search), streamed, sent sequentially
 * on one keep-alive connection to the scripted upstream directly and through the gateway (billing off and on),
 * to a Responses model (the body goes as given) and to a chat-only model (translated). The figure is the added
 * median and p90 latency to the end of the stream.
 */
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { round, type BenchReport } from './harness.js';
import { startChild } from './gateway-processes.js';

const SAMPLES = 300;
const WARMUP = 50;

/** A Codex turn's body of about `bytes` bytes. */
export function codexLikeBody(model: string, bytes = 40_000): Record<string, unknown> {
  const instructions = 'You are Codex, a coding agent. Follow the repository conventions. '.repeat(320);
  const input: unknown[] = [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions> sandbox: workspace-write' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context> cwd: /work </environment_context>' }] },
  ];
  const body: Record<string, unknown> = {
    model,
    instructions,
    input,
    tools: [
      {
        type: 'function',
        name: 'exec_command',
        description: 'Runs a command in a PTY.',
        strict: false,
        parameters: { type: 'object', properties: { cmd: { type: 'string' }, workdir: { type: 'string' } }, required: ['cmd'] },
      },
      {
        type: 'custom',
        name: 'apply_patch',
        description: 'Edit files.',
        format: { type: 'grammar', syntax: 'lark', definition: 'start: x' },
      },
      { type: 'web_search', external_web_access: false },
    ],
    tool_choice: 'auto',
    parallel_tool_calls: true,
    reasoning: { effort: 'medium' },
    store: false,
    stream: true,
    include: ['reasoning.encrypted_content'],
    prompt_cache_key: '019a-thread',
    text: { verbosity: 'low' },
  };
  for (let turn = 0; JSON.stringify(body).length < bytes; turn += 1) {
    input.push(
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: `Step ${turn}: look at src/module-${turn}.ts and fix it.` }] },
      {
        type: 'function_call',
        call_id: `call_${turn}`,
        name: 'exec_command',
        arguments: JSON.stringify({ cmd: `cat src/module-${turn}.ts` }),
      },
      { type: 'function_call_output', call_id: `call_${turn}`, output: `export const value${turn} = ${turn};\n`.repeat(30) },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: `Module ${turn} looks fine.` }] },
    );
  }
  return body;
}

/** Sorted end-of-stream times, or the status of a refusal (nothing then is timed). */
async function timings(url: string, headers: Record<string, string>, payload: string): Promise<number[] | number> {
  const origin = new URL(url);
  const pool = new Pool(origin.origin, { connections: 1 });
  const totals: number[] = [];
  try {
    for (let index = 0; index < SAMPLES + WARMUP; index += 1) {
      const startedAt = performance.now();
      const response = await pool.request({
        method: 'POST',
        path: `${origin.pathname}/responses`,
        headers: { 'content-type': 'application/json', ...headers },
        body: payload,
      });
      for await (const _chunk of response.body);
      if (response.statusCode !== 200) return response.statusCode;
      if (index >= WARMUP) totals.push(performance.now() - startedAt);
    }
  } finally {
    await pool.close();
  }
  return totals.sort((a, b) => a - b);
}

const at = (sorted: number[], fraction: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]!;

export default async function responsesHopBench(report: BenchReport): Promise<void> {
  report.section('Gateway hop of a Codex-like 40 kB Responses request (stream, sequential)');
  const upstream = await startChild('upstream');
  const gateway = await startChild('gateway', upstream.info.url);
  const billed = await startChild('gateway-billed', upstream.info.url);
  try {
    const bytes = JSON.stringify(codexLikeBody('x')).length;
    const direct = await timings(`${upstream.info.url}/v1`, {}, JSON.stringify(codexLikeBody('scripted-model')));
    if (typeof direct === 'number') throw new Error(`the upstream answered ${direct}`);
    const rows: Record<string, string | number>[] = [
      {
        path: 'direct to the upstream',
        'body bytes': bytes,
        'p50 ms': round(at(direct, 0.5), 2),
        'p90 ms': round(at(direct, 0.9), 2),
        'added p50 ms': 0,
      },
    ];
    for (const [name, child] of [
      ['billing off', gateway],
      ['billing on', billed],
    ] as const) {
      for (const model of ['bench-responses', 'bench-model']) {
        const sorted = await timings(
          `${child.info.url}/v1`,
          { authorization: `Bearer ${child.info.key}` },
          JSON.stringify(codexLikeBody(model)),
        );
        const path = `gateway, ${name}, ${model === 'bench-responses' ? 'Responses model (as given)' : 'chat-only model (translated)'}`;
        if (typeof sorted === 'number') {
          rows.push({ path, 'body bytes': bytes, 'p50 ms': `refused (${sorted})`, 'p90 ms': '', 'added p50 ms': '' });
          continue;
        }
        rows.push({
          path,
          'body bytes': bytes,
          'p50 ms': round(at(sorted, 0.5), 2),
          'p90 ms': round(at(sorted, 0.9), 2),
          'added p50 ms': round(at(sorted, 0.5) - at(direct, 0.5), 2),
        });
      }
    }
    report.table(rows);
  } finally {
    await Promise.all([billed.stop(), gateway.stop(), upstream.stop()]);
  }
}

/**
 * The real Claude Code CLI (`-p`, telemetry off, a fresh HOME) against the service, routed to an Anthropic-kind
 * and an OpenAI-kind model on the scripted upstream: a text answer and a tool round trip (its Read tool).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/model-upstream.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';
import { lostFields, startRecordingProxy, type Exchange, type Kind } from './field-check.js';

const CLAUDE = path.resolve('node_modules/.bin/claude');
let gateway: GatewayTestContext;
const folders: string[] = [];

beforeAll(async () => {
  gateway = await createGatewayContext();
});
afterAll(async () => {
  await gateway.close();
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});
beforeEach(() => {
  gateway.upstream.requests.length = 0;
});

function folder(prefix: string): string {
  const made = mkdtempSync(path.join(tmpdir(), prefix));
  folders.push(made);
  return made;
}

function claude(args: string[], cwd: string, baseUrl = gateway.url): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(CLAUDE, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: folder('claude-home-'),
        ANTHROPIC_BASE_URL: baseUrl,
        ANTHROPIC_API_KEY: gateway.key,
        DISABLE_TELEMETRY: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function modelCalls(): RecordedRequest[] {
  return gateway.upstream.requests.filter((request) => request.method === 'POST');
}

const hasToolResult = (request: RecordedRequest): boolean => /"tool_result"|"role":"tool"/.test(JSON.stringify(request.body.messages));

describe.each([
  { kind: 'anthropic', model: MODELS.anthropic },
  { kind: 'openai', model: MODELS.openai },
])('Claude Code → $kind model', ({ kind, model }) => {
  it('gets a text answer', async () => {
    gateway.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
    const result = await claude(['-p', 'Say hello', '--model', model], folder('claude-work-'));
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('Hello from the scripted model.');
    const [sent] = modelCalls();
    if (kind === 'anthropic') {
      expect(sent!.path).toBe('/v1/messages');
      expect(sent!.body.model).toBe('upstream-claude');
      // Sent as Claude Code wrote it: system blocks with their cache marks, mid-conversation system, beta headers.
      expect(Array.isArray(sent!.body.system)).toBe(true);
      expect(JSON.stringify(sent!.body.system)).toContain('"cache_control"');
      expect(sent!.body.messages.some((message: { role: string }) => message.role === 'system')).toBe(true);
      expect(sent!.body.thinking).toEqual({ type: 'adaptive' });
      expect(sent!.body.output_config).toHaveProperty('effort');
      expect(sent!.headers['anthropic-beta']).toContain('mid-conversation-system-2026-04-07');
    } else {
      expect(sent!.path).toBe('/v1/chat/completions');
      expect(sent!.body.messages[0].role).toBe('system');
      // The mid-conversation instruction stays in place, after the user's first turn.
      const roles = sent!.body.messages.map((message: { role: string }) => message.role);
      expect(roles.slice(0, 3)).toEqual(['system', 'user', 'system']);
      expect(sent!.body.reasoning_effort).toMatch(/^(low|medium|high|xhigh)$/);
    }
  }, 120_000);

  it('runs a tool round trip with its Read tool', async () => {
    const cwd = folder('claude-work-');
    writeFileSync(path.join(cwd, 'note.txt'), 'The secret word is heron.\n');
    gateway.upstream.setDefault((request) =>
      hasToolResult(request)
        ? { kind: 'text', text: 'The secret word is heron.' }
        : { kind: 'tool_call', name: 'Read', arguments: JSON.stringify({ file_path: path.join(cwd, 'note.txt') }), callId: 'toolu_read_1' },
    );
    const result = await claude(['-p', 'What is the secret word in note.txt?', '--model', model, '--allowedTools', 'Read'], cwd);
    expect(result.code).toBe(0);
    expect(result.stdout.trim()).toBe('The secret word is heron.');
    const calls = modelCalls();
    const second = calls.find(hasToolResult);
    expect(second).toBeDefined();
    const history = JSON.stringify(second!.body.messages);
    // The file's content went back to the model as the tool's result.
    expect(history).toContain('The secret word is heron.');
    if (kind === 'anthropic') {
      expect(history).toContain('"tool_use_id":"toolu_read_1"');
    } else {
      expect(second!.body.messages).toContainEqual(expect.objectContaining({ role: 'tool', tool_call_id: 'toolu_read_1' }));
    }
  }, 120_000);
});

/**
 * Every field Claude Code sends arrives upstream or is named in `x-switchyard-dropped-fields`: a proxy in front of
 * the gateway records what it sent (the count-tokens and other side requests aside).
 */
describe.each([
  { kind: 'anthropic' as Kind, model: MODELS.anthropic },
  { kind: 'openai' as Kind, model: MODELS.openai },
])('Claude Code → $model: every field arrives', ({ kind, model }) => {
  it('the prompt request as Claude Code sent it', async () => {
    const exchanges: Exchange[] = [];
    const proxy = await startRecordingProxy(gateway.url, exchanges);
    try {
      gateway.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
      const result = await claude(['-p', 'Say hello', '--model', model], folder('claude-work-'), proxy.url);
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
    const sent = exchanges.filter((exchange) => exchange.path === '/v1/messages');
    const received = modelCalls();
    expect(sent.length).toBeGreaterThanOrEqual(1);
    expect(received).toHaveLength(sent.length);
    // Requests and their upstream calls pair up in order (Claude Code sends them one after another in print mode).
    sent.forEach((exchange, index) =>
      expect(lostFields(exchange, received[index]!.body, kind), JSON.stringify(exchange.droppedFields)).toEqual([]),
    );
  }, 120_000);
});

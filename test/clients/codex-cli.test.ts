/**
 * The real Codex CLI (`codex exec`, its default configuration, a fresh CODEX_HOME) pointed at the service as a custom
 * model provider, routed to a chat-only model and to a Responses model on the scripted upstream: a text turn and a
 * shell-command turn. Codex sends its hosted `web_search` tool on every turn; the chat-only model has none, and the
 * turn goes on without it.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/model-upstream.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';
import { lostFields, startRecordingProxy, type Exchange, type Kind } from './field-check.js';

const CODEX = path.resolve('node_modules/.bin/codex');
/** Codex puts its sandbox helper in CODEX_HOME and refuses to under the temporary folder. */
const CODEX_HOME_PARENT = '/var/tmp';
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

function folder(prefix: string, parent = tmpdir()): string {
  const made = mkdtempSync(path.join(parent, prefix));
  folders.push(made);
  return made;
}

/** `codex exec` with nothing but the provider set (through -c), bounded in time. */
function codex(
  prompt: string,
  model: string,
  cwd: string,
  baseUrl = gateway.url,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const provider = `{ name = "switchyard", base_url = "${baseUrl}/v1", env_key = "SWITCHYARD_KEY", wire_api = "responses" }`;
  const args = ['exec', '--skip-git-repo-check', '-c', `model_providers.switchyard=${provider}`, '-c', 'model_provider="switchyard"'];
  args.push('-m', model, prompt);
  return new Promise((resolve, reject) => {
    const child = spawn(CODEX, args, {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: folder('codex-home-'),
        CODEX_HOME: folder('codex-config-', CODEX_HOME_PARENT),
        SWITCHYARD_KEY: gateway.key,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

function modelCalls(): RecordedRequest[] {
  return gateway.upstream.requests.filter((request) => request.method === 'POST');
}

/** The tool result of the shell command went back to the model (chat `tool` message or Responses output item). */
function toolOutputOf(request: RecordedRequest): string | undefined {
  if (Array.isArray(request.body.messages))
    return request.body.messages.find((message: { role: string }) => message.role === 'tool')?.content;
  return request.body.input?.find((item: { type: string }) => item.type === 'function_call_output')?.output;
}

describe.each([
  { kind: 'chat-only', model: MODELS.openai },
  { kind: 'Responses', model: MODELS.native },
])('Codex CLI → $kind model', ({ kind, model }) => {
  it('gets a text answer', async () => {
    gateway.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
    const result = await codex('Say hello', model, folder('codex-work-'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('Hello from the scripted model.');
    const [sent] = modelCalls();
    if (kind === 'chat-only') {
      expect(sent!.path).toBe('/v1/chat/completions');
      // Codex's hosted web_search was left out (a chat-only model runs none); what chat has too arrived.
      expect(sent!.body.web_search_options).toBeUndefined();
      expect(sent!.body.tools.map((tool: { function: { name: string } }) => tool.function.name)).toContain('exec_command');
      expect(sent!.body.prompt_cache_key).toEqual(expect.any(String));
    } else {
      expect(sent!.path).toBe('/v1/responses');
      // The Responses body as Codex sent it, model rewritten: the hosted tool and every field arrive.
      expect(sent!.body.model).toBe('upstream-gpt-native');
      expect(sent!.body.tools).toContainEqual(expect.objectContaining({ type: 'web_search' }));
      expect(sent!.body).toMatchObject({ store: false, stream: true, prompt_cache_key: expect.any(String) });
      expect(sent!.body.include).toEqual(expect.any(Array));
    }
  }, 120_000);

  it('runs a shell command and answers from its output', async () => {
    const cwd = folder('codex-work-');
    writeFileSync(path.join(cwd, 'note.txt'), 'The secret word is heron.\n');
    gateway.upstream.setDefault((request) =>
      toolOutputOf(request) === undefined
        ? { kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'cat note.txt' }), callId: 'call_shell_1' }
        : { kind: 'text', text: 'The note says heron.' },
    );
    const result = await codex('What does note.txt say?', model, cwd);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('The note says heron.');
    const second = modelCalls().find((request) => toolOutputOf(request) !== undefined);
    // The command ran in the work folder and its output went back to the model as the call's result.
    expect(String(toolOutputOf(second!))).toContain('The secret word is heron.');
  }, 120_000);
});

/**
 * Every field Codex sends arrives upstream or is named in `x-switchyard-dropped-fields`: a proxy in front of the
 * gateway records what Codex sent. The request (its conversation and tools summarised) is kept in
 * test/fixtures/clients/ so a Codex that starts sending something new shows up as a diff.
 */
describe.each([
  { kind: 'openai' as Kind, model: MODELS.openai },
  { kind: 'openai-responses' as Kind, model: MODELS.native },
])('Codex CLI → $model: every field arrives', ({ kind, model }) => {
  it('the turn request as Codex sent it', async () => {
    const exchanges: Exchange[] = [];
    const proxy = await startRecordingProxy(gateway.url, exchanges);
    try {
      gateway.upstream.setDefault(() => ({ kind: 'text', text: 'Hello from the scripted model.' }));
      const result = await codex('Say hello', model, folder('codex-work-'), proxy.url);
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await proxy.close();
    }
    const sent = exchanges.filter((exchange) => exchange.path === '/v1/responses');
    const received = modelCalls();
    expect(sent).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect(lostFields(sent[0]!, received[0]!.body, kind), JSON.stringify(sent[0]!.droppedFields)).toEqual([]);
    if (kind === 'openai') expect(sent[0]!.droppedFields).toEqual(expect.arrayContaining(['include']));
    else expect(sent[0]!.droppedFields).toEqual([]);
    const body = sent[0]!.body as { input: { type: string; role?: string }[]; tools: { type: string; name?: string }[] };
    const fixture = {
      client: 'Codex CLI 0.147.0 (codex exec)',
      path: sent[0]!.path,
      body: {
        ...body,
        model: '<model>',
        instructions: '<instructions>',
        input: body.input.map((item) => ({ type: item.type, role: item.role })),
        tools: body.tools.map((tool) => ({ type: tool.type, name: tool.name })),
        prompt_cache_key: '<thread id>',
        client_metadata: '<client metadata>',
      },
    };
    writeFileSync('test/fixtures/clients/codex-cli-0.147.0.json', `${JSON.stringify(fixture, null, 2)}\n`);
  }, 120_000);
});

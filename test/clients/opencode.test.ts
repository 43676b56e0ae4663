/**
 * opencode (`opencode run`, the released binary from npm) pointed at the service through a config file of its own,
 * as its documentation tells a user to add a custom provider, with each of the three AI SDK providers it loads: the
 * OpenAI-compatible one to a chat-only model, the OpenAI one (Responses) to a Responses model, the Anthropic one to an
 * Anthropic-kind model. A text turn and a shell-command turn each.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../fakes/model-upstream.js';
import { createGatewayContext, MODELS, type GatewayTestContext } from '../gateway/gateway-context.js';
import { cacheMarks, lostFields, startRecordingProxy, type Exchange, type Kind } from './field-check.js';

const OPENCODE = path.resolve('node_modules/.bin/opencode');
let gateway: GatewayTestContext;
const folders: string[] = [];
/** What opencode sent, recorded by a proxy in front of the gateway (opencode's own fetch cannot be reached). */
const exchanges: Exchange[] = [];
let proxy: { url: string; close(): Promise<void> };

beforeAll(async () => {
  gateway = await createGatewayContext();
  proxy = await startRecordingProxy(gateway.url, exchanges);
});
afterAll(async () => {
  await proxy.close();
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

/** The AI SDK provider opencode loads for each destination, as a user's opencode.json names it. */
interface Provider {
  destination: string;
  model: string;
  npm: string;
  path: string;
}

const PROVIDERS: Provider[] = [
  { destination: 'chat-only', model: MODELS.openai, npm: '@ai-sdk/openai-compatible', path: '/v1/chat/completions' },
  { destination: 'Responses', model: MODELS.native, npm: '@ai-sdk/openai', path: '/v1/responses' },
  { destination: 'Anthropic-kind', model: MODELS.anthropic, npm: '@ai-sdk/anthropic', path: '/v1/messages' },
];

function opencode(
  prompt: string,
  provider: Provider,
  cwd: string,
  baseUrl = gateway.url,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const config = {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      switchyard: {
        npm: provider.npm,
        name: 'Switchyard',
        options: { baseURL: `${baseUrl}/v1`, apiKey: '{env:SWITCHYARD_KEY}' },
        models: { [provider.model]: { name: provider.model } },
      },
    },
    model: `switchyard/${provider.model}`,
  };
  writeFileSync(path.join(cwd, 'opencode.json'), JSON.stringify(config, null, 2));
  return new Promise((resolve, reject) => {
    const home = folder('opencode-home-');
    const child = spawn(OPENCODE, ['run', prompt], {
      cwd,
      env: {
        PATH: process.env.PATH,
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        XDG_DATA_HOME: path.join(home, '.local/share'),
        XDG_CACHE_HOME: path.join(home, '.cache'),
        XDG_STATE_HOME: path.join(home, '.local/state'),
        SWITCHYARD_KEY: gateway.key,
        // No update check and no models.dev catalogue: this machine has no way out (a user's has).
        OPENCODE_DISABLE_AUTOUPDATE: '1',
        OPENCODE_DISABLE_MODELS_FETCH: '1',
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

/** The main loop's model requests (opencode also asks the model for a session title, with a prompt of its own). */
function loopCalls(): RecordedRequest[] {
  return gateway.upstream.requests.filter(
    (request) => request.method === 'POST' && !JSON.stringify(request.body).includes('title generator'),
  );
}

const hasToolOutput = (body: unknown): boolean => JSON.stringify(body).includes('opencode-ran-this');

/** Titles get a title; a request that carries the command's output gets the final answer; the first asks for the command. */
function script(shell: boolean): void {
  gateway.upstream.setDefault((request) => {
    const text = JSON.stringify(request.body);
    if (text.includes('title generator')) return { kind: 'text', text: 'Greeting' };
    if (!shell) return { kind: 'text', text: 'Hello from the scripted model.' };
    if (hasToolOutput(request.body)) return { kind: 'text', text: 'The command ran.' };
    return {
      kind: 'tool_call',
      name: 'bash',
      arguments: JSON.stringify({ command: 'echo opencode-ran-this > proof.txt && cat proof.txt', description: 'Writes a proof file' }),
      callId: 'call_bash_1',
    };
  });
}

describe.each(PROVIDERS)('opencode, $npm → $destination model', (provider) => {
  it('a text turn', async () => {
    script(false);
    const result = await opencode('Say hello.', provider, folder('opencode-work-'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Hello from the scripted model.');
    const calls = loopCalls();
    expect(calls.length).toBeGreaterThanOrEqual(1);
    for (const call of calls) expect(call.path).toBe(provider.path);
    expect(JSON.stringify(calls[0]!.body)).toContain('Say hello.');
  }, 120_000);

  it('a shell-command turn: the model calls bash, opencode runs it, the output goes back', async () => {
    script(true);
    const work = folder('opencode-work-');
    const result = await opencode('Write the proof file.', provider, work);
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(work, 'proof.txt'), 'utf8')).toBe('opencode-ran-this\n');
    expect(result.stdout).toContain('The command ran.');
    const calls = loopCalls();
    expect(calls.length).toBe(2);
    expect(hasToolOutput(calls[1]!.body)).toBe(true);
  }, 120_000);
});

/**
 * Every field opencode sends arrives upstream or is named in `x-switchyard-dropped-fields`, the cache marks its
 * OpenAI-compatible provider puts on messages toward a Claude model included. The bodies it sent are kept in
 * test/fixtures/clients/ (a new field shows up as a diff).
 */
describe.each([
  { provider: PROVIDERS[0]!, kind: 'openai' as Kind },
  {
    provider: { ...PROVIDERS[0]!, destination: 'Anthropic-kind (translated)', model: MODELS.anthropic, path: '/v1/messages' },
    kind: 'anthropic' as Kind,
  },
  { provider: PROVIDERS[2]!, kind: 'anthropic' as Kind },
])('opencode, $provider.npm → $provider.model: every field arrives', ({ provider, kind }) => {
  it('the loop request as opencode sent it', async () => {
    script(false);
    exchanges.length = 0;
    const result = await opencode('Say hello.', provider, folder('opencode-work-'), proxy.url);
    expect(result.code, result.stderr).toBe(0);
    const sent = exchanges.filter(
      (exchange) => exchange.path.startsWith('/v1/') && !JSON.stringify(exchange.body).includes('title generator'),
    );
    const received = loopCalls();
    expect(sent).toHaveLength(1);
    expect(received).toHaveLength(1);
    expect(received[0]!.path).toBe(provider.path);
    expect(lostFields(sent[0]!, received[0]!.body, kind), JSON.stringify({ sent: sent[0]!.droppedFields })).toEqual([]);
    const name = `opencode-${provider.npm.replace(/[^a-z0-9]+/gi, '-').replace(/^-|-$/g, '')}-to-${kind}`;
    // The fixture keeps every field; the conversation and the tools are summarised (roles and cache marks, tool names).
    const messages = (sent[0]!.body.messages as { role: string }[]).map((message) => ({
      role: message.role,
      cache_marks: cacheMarks({ messages: [message] }),
    }));
    const tools = (sent[0]!.body.tools as { name?: string; function?: { name: string } }[]).map((tool) => tool.name ?? tool.function?.name);
    const body = { ...sent[0]!.body, model: '<model>', system: sent[0]!.body.system ? '<system>' : undefined, messages, tools };
    writeFileSync(
      `test/fixtures/clients/${name}.json`,
      `${JSON.stringify({ client: `opencode 1.18.33 (${provider.npm})`, path: sent[0]!.path, body }, null, 2)}\n`,
    );
  }, 120_000);
});

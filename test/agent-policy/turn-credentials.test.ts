/**
 * The runtime credential acts per turn, tried with real turns: a turn started by a key restricted to one model
 * reads its app-server's runtime key and its own turn credential (from the app-server's environment and Codex's
 * log database, as an agent command can), and names another running thread of the same customer (started with
 * the System Token) to call a model its key may not use. Every attempt is refused and nothing reaches the
 * upstream or the wallet; the credential is void once its turn ended; ordinary turns bill to their starter.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TURN_CREDENTIAL_KEY, TURN_METADATA_HEADER } from '../../src/accounts/turn-principals.js';
import { TOKEN_ENV_KEY } from '../../src/appserver/launch.js';
import { bearer } from '../helpers/context.js';
import { startModelUpstream, type RecordedRequest, type Reply } from '../fakes/model-upstream.js';
import { dataOf, gatewayConfig, startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';

const operator = { kind: 'operator', source: 'static', keyId: null } as const;

/**
 * The attack, run by turn A's shell: the runtime key from whichever process holds it, turn A's own credential from
 * Codex's log database, the gateway address from the app-server's command line; then three calls on model B.
 */
function attackScript(codexHome: string, threadA: string, threadB: string, out: string): string {
  return `
import glob, json, re, sqlite3, time, urllib.request, urllib.error
token, base = None, None
for f in glob.glob('/proc/[0-9]*/environ'):
    try:
        env = open(f, 'rb').read().split(b'\\0')
        cmd = open(f.replace('environ', 'cmdline'), 'rb').read().split(b'\\0')
    except Exception:
        continue
    for e in env:
        if e.startswith(b'${TOKEN_ENV_KEY}='):
            token = e.split(b'=', 1)[1].decode()
    for c in cmd:
        if c.startswith(b'model_providers.switchyard.base_url='):
            base = json.loads(c.split(b'=', 1)[1].decode())
own = None
# Codex writes its log in batches: look again for a while until this turn's submission is there.
for attempt in range(100):
    for db in glob.glob(${JSON.stringify(codexHome)} + '/logs_*.sqlite'):
        for (body,) in sqlite3.connect(db).execute('select feedback_log_body from logs order by id'):
            if body and ${JSON.stringify(threadA)} in body:
                for found in re.findall(r'${TURN_CREDENTIAL_KEY}[^A-Za-z0-9_-]+([A-Za-z0-9_-]{43})', body):
                    own = found
    if own:
        break
    time.sleep(0.2)
def call(thread, credential, model):
    meta = {'thread_id': thread, 'turn_id': 'x', 'request_kind': 'turn'}
    if credential:
        meta['${TURN_CREDENTIAL_KEY}'] = credential
    request = urllib.request.Request(base + '/responses', data=json.dumps({'model': model, 'input': 'hi', 'stream': False}).encode(),
        headers={'authorization': 'Bearer ' + token, 'content-type': 'application/json', '${TURN_METADATA_HEADER}': json.dumps(meta)})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return [response.status, response.read().decode()[:300]]
    except urllib.error.HTTPError as error:
        return [error.code, error.read().decode()[:300]]
result = {'token': bool(token), 'base': base, 'own': bool(own), 'calls': [
    call(${JSON.stringify(threadB)}, own, 'model-b'),
    call(${JSON.stringify(threadB)}, None, 'model-b'),
    call(${JSON.stringify(threadA)}, own, 'model-b'),
]}
json.dump(result, open(${JSON.stringify(out)}, 'w'))
`;
}

describe('the runtime credential is per turn (real turns)', () => {
  let harness: AgentHarness;
  const scripts = new Map<string, Record<string, unknown>>();
  const credentials = new Map<string, string[]>();

  beforeAll(async () => {
    const upstream = await startModelUpstream();
    const gateway = gatewayConfig(upstream.url);
    gateway.models.push({
      id: 'model-b',
      provider: 'scripted',
      upstreamModel: 'scripted-model-b',
      capabilities: { responsesApi: true, tools: true, images: true },
    });
    harness = await startAgentHarness({ upstream, config: gateway, agent: { isolationUidFirst: 3_200_000 } });
    // Each turn's first request runs its project's script (a marker in the prompt names it); then the turn answers.
    upstream.setDefault((request: RecordedRequest): Reply => {
      const input = request.body?.input;
      const last = Array.isArray(input) ? input[input.length - 1] : undefined;
      if (typeof last?.type === 'string' && last.type.endsWith('_output')) return { kind: 'text', text: 'Done.' };
      const text = JSON.stringify(input);
      const marker = [...scripts.keys()].find((key) => text.includes(key));
      return marker
        ? { kind: 'tool_call', name: 'exec_command', arguments: JSON.stringify(scripts.get(marker)) }
        : { kind: 'text', text: 'Hello.' };
    });
    // The credentials handed to the app-server, by thread (the test reads them the way the gateway receives them).
    const principals = harness.context.services.turnPrincipals;
    const bind = principals.bind.bind(principals);
    principals.bind = (threadId, activity, principal) => {
      const credential = bind(threadId, activity, principal);
      credentials.set(threadId, [...(credentials.get(threadId) ?? []), credential.metadata[TURN_CREDENTIAL_KEY]!]);
      return credential;
    };
  }, 60_000);
  afterAll(async () => harness?.close());

  const post = (url: string, headers: { authorization: string }, payload?: object) =>
    harness.context.app.inject({ method: 'POST', url, headers, ...(payload === undefined ? {} : { payload }) });

  async function openProject(headers: { authorization: string }) {
    const projectId = await harness.createProject(headers);
    const opened = await post(`/api/v1/projects/${projectId}/open`, headers);
    expect(opened.statusCode, opened.body).toBe(200);
    const project = await harness.context.services.projects.requireOwned(operator, projectId);
    return { projectId, threadId: opened.json().thread.id as string, workspace: project.workspaceDir };
  }

  async function startTurn(projectId: string, headers: { authorization: string }, marker: string) {
    const started = await post(`/api/v1/projects/${projectId}/turns`, headers, { input: `run ${marker}` });
    expect(started.statusCode, started.body).toBe(202);
    return started.json().turn_id as string;
  }

  const completion = (projectId: string, turnId: string) =>
    harness.waitForEvent(projectId, (event) => event.type === 'turn/completed' && dataOf(event).turn.id === turnId, 90_000);

  async function callsByKey() {
    await harness.context.services.billing.wallet.settled();
    const rows = await harness.context.storage.db
      .selectFrom('billing_calls')
      .select(['key_id', 'requested_model', 'status'])
      .where('customer_id', '=', harness.customer.id)
      .execute();
    return rows;
  }

  it('a restricted turn cannot bill another model through a System Token thread, during or after its turn', async () => {
    const restricted = await harness.context.services.keys.issue(harness.context.storage.db, {
      customerId: harness.customer.id,
      kind: 'user',
      role: 'customer',
      name: 'model A only',
      policy: { surfaces: ['projects', 'account'], models: ['power-ai'] },
    });
    const restrictedHeaders = bearer(restricted.plaintext);
    const b = await openProject(harness.customer.headers);
    const a = await openProject(restrictedHeaders);
    const codexHome = path.join(harness.context.dataDir, 'codex-homes', String(harness.customer.id));
    const out = path.join(a.workspace, 'attack.json');
    // The command holds B's turn open (exec_command waits for it up to its yield time).
    scripts.set('hold-b', { cmd: 'sleep 30', yield_time_ms: 40_000 });
    scripts.set('attack-a', { cmd: `python3 - <<'PY'\n${attackScript(codexHome, a.threadId, b.threadId, out)}\nPY` });

    // B: a System Token turn, running a long command while A attacks.
    const turnB = await startTurn(b.projectId, harness.customer.headers, 'hold-b');
    await harness.waitForEvent(b.projectId, (event) => event.type === 'item/started' && dataOf(event).item?.type === 'commandExecution');
    const turnA = await startTurn(a.projectId, restrictedHeaders, 'attack-a');
    expect(dataOf(await completion(a.projectId, turnA)).turn.status).toBe('completed');

    const result = JSON.parse(fs.readFileSync(out, 'utf8')) as { token: boolean; base: string; own: boolean; calls: [number, string][] };
    // The agent did hold the runtime key and its own turn's credential: the refusals below are the gateway's.
    expect(result).toMatchObject({ token: true, own: true });
    expect(result.base).toMatch(/\/v1$/);
    const [ownNamingB, bareNamingB, ownOnModelB] = result.calls;
    expect(ownNamingB![0]).toBe(403);
    expect(JSON.parse(ownNamingB![1]).error.code).toBe('turn_credential_mismatch');
    expect(bareNamingB![0]).toBe(403);
    expect(JSON.parse(bareNamingB![1]).error.code).toBe('no_running_turn');
    // Its own thread: the restricted key's policy applies.
    expect(ownOnModelB![0]).toBe(403);
    expect(harness.upstream.requests.filter((request) => request.body?.model === 'scripted-model-b')).toEqual([]);

    // After A's turn: its credential acts for nothing, whichever thread it names, while B still runs (B's own does).
    const bCompleted = (await harness.events(b.projectId)).some((event) => event.type === 'turn/completed');
    expect(bCompleted).toBe(false);
    const runtimeKey = await currentRuntimeKey();
    const own = await harness.context.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: {
        ...bearer(runtimeKey),
        [TURN_METADATA_HEADER]: JSON.stringify({ thread_id: b.threadId, [TURN_CREDENTIAL_KEY]: credentials.get(b.threadId)!.at(-1) }),
      },
      payload: { model: 'power-ai', input: 'hi' },
    });
    expect(own.statusCode, own.body).toBe(200);
    const ended = credentials.get(a.threadId)!.at(-1)!;
    for (const threadId of [a.threadId, b.threadId]) {
      const late = await harness.context.app.inject({
        method: 'POST',
        url: '/v1/responses',
        headers: {
          ...bearer(runtimeKey),
          [TURN_METADATA_HEADER]: JSON.stringify({ thread_id: threadId, [TURN_CREDENTIAL_KEY]: ended }),
        },
        payload: { model: 'model-b', input: 'hi' },
      });
      expect(late.statusCode, late.body).toBe(403);
    }

    expect(dataOf(await completion(b.projectId, turnB)).turn.status).toBe('completed');
    // Ordinary turns billed to their starters, on model A only.
    const calls = await callsByKey();
    expect(calls.every((call) => call.requested_model === 'power-ai')).toBe(true);
    const system = await harness.context.services.identity.resolve(harness.customer.token);
    const keyOf = (call: { key_id: unknown }) => Number(call.key_id);
    expect(calls.filter((call) => keyOf(call) === Number(restricted.row.id))).toHaveLength(2);
    expect(calls.filter((call) => system.kind === 'customer' && keyOf(call) === system.keyId)).toHaveLength(3);
    expect(calls).toHaveLength(5);
    // The credential stays between the app-server and this service: nothing of it reaches the upstream.
    const upstreamSaw = JSON.stringify(harness.upstream.requests.map((request) => [request.headers, request.body]));
    for (const credential of [...credentials.values()].flat()) expect(upstreamSaw).not.toContain(credential);
  }, 180_000);

  /** The runtime key as the app-server holds it (the sandbox's innermost process). */
  async function currentRuntimeKey(): Promise<string> {
    const outer = harness.context.services.agent.supervisor.peek(harness.customer.id)!.pid!;
    const pending = [outer];
    while (pending.length > 0) {
      const pid = pending.shift()!;
      const entry = fs
        .readFileSync(`/proc/${pid}/environ`, 'utf8')
        .split('\0')
        .find((item) => item.startsWith(`${TOKEN_ENV_KEY}=`));
      if (entry) return entry.slice(TOKEN_ENV_KEY.length + 1);
      const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim();
      if (children) pending.push(...children.split(/\s+/).map(Number));
    }
    throw new Error('no runtime key found');
  }
});

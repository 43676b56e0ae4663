import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { TOKEN_ENV_KEY } from '../../src/appserver/launch.js';
import { bearer } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';
import { startAgentHarness, type AgentHarness } from './agent-harness.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A codex whose app-server records the runtime key it was given, then either runs as the real app-server or, while
 * the marker file exists, fails before its handshake (a bad configuration, a broken install).
 */
function recordingCodex(folder: string): { binary: string; tokens: () => string[]; failStarts(fail: boolean): void } {
  const tokenFile = path.join(folder, 'tokens');
  const marker = path.join(folder, 'fail');
  const binary = path.join(folder, 'codex');
  const body = [
    '#!/bin/sh',
    `if [ "$1" = "app-server" ]; then echo "$${TOKEN_ENV_KEY}" >> ${JSON.stringify(tokenFile)}; [ -e ${JSON.stringify(marker)} ] && exit 1; fi`,
    `exec ${JSON.stringify(defaultCodexBinary())} "$@"`,
  ];
  fs.writeFileSync(binary, `${body.join('\n')}\n`, { mode: 0o755 });
  return {
    binary,
    tokens: () => (fs.existsSync(tokenFile) ? fs.readFileSync(tokenFile, 'utf8').trim().split('\n') : []),
    failStarts: (fail) => (fail ? fs.writeFileSync(marker, '') : fs.rmSync(marker, { force: true })),
  };
}

describe('the agent runtime key', () => {
  const codex = recordingCodex(tempDir('switchyard-key-codex-'));
  let harness: AgentHarness;
  beforeAll(async () => {
    // The scripted codex keeps its records in host files that the agent sandbox hides (test/sandbox covers the sandbox).
    harness = await startAgentHarness({
      agent: { codexBinary: codex.binary, restartAttemptsMax: 2, restartBackoffInitialMs: 50, isolation: 'none' },
    });
  });
  afterAll(async () => harness?.close());

  // A live runtime key authenticates but acts only for a running turn (403 no_running_turn); a revoked one is a 401.
  const authenticates = async (token: string) => {
    const response = await harness.context.app.inject({ method: 'GET', url: '/v1/models', headers: bearer(token) });
    if (response.statusCode === 401) return false;
    expect(response.json().error.code).toBe('no_running_turn');
    return true;
  };
  const runtimeKey = async () => {
    const status = await harness.context.app.inject({ method: 'GET', url: '/api/v1/agent/status', headers: harness.customer.headers });
    return status.json().account.runtime_key as { keyId: number } | null;
  };
  const runtimeKeyRows = () =>
    harness.context.storage.db
      .selectFrom('api_keys')
      .select(['id', 'revoked_at'])
      .where('customer_id', '=', harness.customer.id)
      .where('name', '=', 'Agent runtime')
      .execute();

  it('is one key across failed starts, restarts and crashes, acting only for a running turn', async () => {
    codex.failStarts(true);
    await expect(harness.context.services.agent.supervisor.acquire(harness.customer.id)).rejects.toThrow();
    const first = codex.tokens().at(-1)!;
    expect(first).toMatch(/\S/);
    expect(await authenticates(first)).toBe(true);

    codex.failStarts(false);
    const supervisor = harness.context.services.agent.supervisor;
    const server = await supervisor.acquire(harness.customer.id);
    expect(codex.tokens().at(-1)).toBe(first);

    const before = codex.tokens().length;
    codex.failStarts(true);
    process.kill(server.pid!, 'SIGKILL');
    // Two failed restarts (restartAttemptsMax), then the supervisor gives up until the next use.
    const deadline = Date.now() + 10_000;
    while ((codex.tokens().length < before + 2 || supervisor.status().length > 0) && Date.now() < deadline) await sleep(50);
    await sleep(300);
    expect(codex.tokens().length).toBe(before + 2);
    expect(new Set(codex.tokens())).toEqual(new Set([first]));
    expect(await authenticates(first)).toBe(true);
    // One row, live: the customer's key list does not grow with every start.
    const rows = await runtimeKeyRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.revoked_at).toBeNull();
    expect((await runtimeKey())?.keyId).toBe(Number(rows[0]!.id));
  });

  it('survives a service restart (kept sealed), and a revoked one is replaced at the next start', async () => {
    codex.failStarts(false);
    const first = codex.tokens().at(-1)!;
    // A second service over the same database (a restart) hands the same key to its app-server.
    const { RuntimeKeys } = await import('../../src/agent/runtime-keys.js');
    const { SecretBox } = await import('../../src/accounts/secrets.js');
    const { services, storage } = harness.context;
    const restarted = new RuntimeKeys(storage, services.keys, services.clock, new SecretBox(services.config.secret));
    expect(await restarted.issue(harness.customer.id)).toBe(first);
    // Another server secret cannot open the sealed key: a new key replaces it, the old one is revoked.
    const otherSecret = new RuntimeKeys(storage, services.keys, services.clock, new SecretBox('another-secret-0123456789-0123456789-0123'));
    const replaced = await otherSecret.issue(harness.customer.id);
    expect(replaced).not.toBe(first);
    expect(await authenticates(first)).toBe(false);

    // Revoked by the operator: the next start issues a fresh one.
    const rowsBefore = await runtimeKeyRows();
    const live = rowsBefore.find((row) => row.revoked_at === null)!;
    await services.keys.revoke(storage.db, Number(live.id));
    const fresh = await restarted.issue(harness.customer.id);
    expect(fresh).not.toBe(replaced);
    expect(await authenticates(fresh)).toBe(true);
    expect(await authenticates(replaced)).toBe(false);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { tempDir } from '../helpers/databases.js';
import { startAgentHarness, type AgentHarness } from './agent-harness.js';

/** A codex whose first catalogue read fails (a transient failure, e.g. its timeout under load), then works. */
function flakyCatalogueCodex(): string {
  const folder = tempDir('switchyard-flaky-codex-');
  const marker = path.join(folder, 'failed-once');
  const script = path.join(folder, 'codex');
  const body = [
    '#!/bin/sh',
    `if [ "$1" = "debug" ] && [ ! -e ${JSON.stringify(marker)} ]; then touch ${JSON.stringify(marker)}; exit 1; fi`,
    `exec ${JSON.stringify(defaultCodexBinary())} "$@"`,
  ];
  fs.writeFileSync(script, `${body.join('\n')}\n`, { mode: 0o755 });
  return script;
}

describe('app-server launch after a failed catalogue read', () => {
  let harness: AgentHarness;
  beforeAll(async () => {
    // The scripted codex keeps its records in host files that the agent sandbox hides (test/sandbox covers the sandbox).
    harness = await startAgentHarness({ agent: { codexBinary: flakyCatalogueCodex(), isolation: 'none' } });
  });
  afterAll(async () => harness?.close());

  it('reads the bundled catalogue again on the next start instead of failing every start from then on', async () => {
    const projectId = await harness.createProject();
    const open = () =>
      harness.context.app.inject({ method: 'POST', url: `/api/v1/projects/${projectId}/open`, headers: harness.customer.headers });
    const first = await open();
    expect(first.statusCode).toBeGreaterThanOrEqual(500);
    const second = await open();
    expect(second.statusCode).toBe(200);
    expect(second.json().thread.id).toEqual(expect.any(String));
  });
});

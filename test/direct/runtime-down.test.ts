import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultCodexBinary } from '../../src/agent/runtime-config.js';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { tempDir } from '../helpers/databases.js';

/** A codex that answers the model-catalog read at launch but whose app-server exits before the handshake. */
function dyingAppServer(): string {
  const script = path.join(tempDir('switchyard-dying-codex-'), 'codex');
  fs.writeFileSync(script, `#!/bin/sh\nif [ "$1" = "app-server" ]; then exit 1; fi\nexec ${JSON.stringify(defaultCodexBinary())} "$@"\n`, {
    mode: 0o755,
  });
  return script;
}

describe('routes while the app-server cannot run', () => {
  let context: TestContext;
  let headers: { authorization: string };
  beforeAll(async () => {
    context = await createTestContext({ config: { agent: { codexBinary: dyingAppServer(), restartBackoffInitialMs: 50 } } as never });
    const created = await context.services.customers.create({ email: 'down@example.com' });
    headers = bearer(created.systemToken.key);
  });
  afterAll(async () => context?.close());

  it('answers 503 with Retry-After on a project route when the process dies before the handshake', async () => {
    const project = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers, payload: {} });
    for (let attempt = 0; attempt < 3; attempt += 1) {
      // However the death shows first (exit, or the closed stdin pipe), it reads as "restarting", not as an internal error.
      const opened = await context.app.inject({ method: 'POST', url: `/api/v1/projects/${project.json().id}/open`, headers });
      expect(opened.statusCode).toBe(503);
      expect(opened.headers['retry-after']).toBeDefined();
    }
  });

  it('answers 503 with Retry-After on the direct routes, as the project routes do, instead of an internal error', async () => {
    const requests = [
      { method: 'POST' as const, url: '/api/threads', payload: { cwd: 'down' } },
      { method: 'GET' as const, url: '/api/threads' },
      { method: 'GET' as const, url: '/api/models' },
      { method: 'POST' as const, url: '/api/projects/open', payload: { cwd: 'down' } },
      { method: 'POST' as const, url: '/api/turns', payload: { thread_id: 'some-thread', input: 'hi' } },
    ];
    for (const request of requests) {
      const response = await context.app.inject({ ...request, headers });
      expect(response.statusCode, `${request.method} ${request.url}`).toBe(503);
      expect(response.headers['retry-after'], `${request.method} ${request.url}`).toBeDefined();
      expect(response.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE' });
    }
  });
});

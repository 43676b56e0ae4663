/**
 * `agent.isolation`: one start-up log line saying which isolation app-servers get; `required` refuses to start
 * an app-server without it (503, nothing left running, no runtime key left active); `auto` falls back to none
 * with a loud warning; `none` says so.
 */
import { describe, expect, it } from 'vitest';
import { startAgentHarness, type AgentHarness } from '../agent/agent-harness.js';
import { SANDBOX_UNAVAILABLE } from './sandbox-support.js';

const MISSING_BWRAP = '/nonexistent/bwrap';

async function withHarness(agent: Record<string, unknown>, work: (harness: AgentHarness) => Promise<void>): Promise<void> {
  const harness = await startAgentHarness({ agent });
  try {
    await work(harness);
  } finally {
    await harness.close();
  }
}

const isolationLines = (harness: AgentHarness) =>
  harness.context.logs.filter((line) => line.includes('agent isolation:')).map((line) => JSON.parse(line));
const networkLines = (harness: AgentHarness) =>
  harness.context.logs.filter((line) => line.includes('agent network:')).map((line) => JSON.parse(line));

describe('agent.isolation', () => {
  it('required without bubblewrap: says so at start and refuses to start any app-server', async () => {
    await withHarness({ isolation: 'required', isolationBwrap: MISSING_BWRAP }, async (harness) => {
      const lines = isolationLines(harness);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 50, isolation: 'unavailable' });
      expect(lines[0].msg).toContain('REQUIRED BUT UNAVAILABLE');
      expect(lines[0].reason).toContain(MISSING_BWRAP);

      const projectId = await harness.createProject();
      const opened = await harness.context.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${projectId}/open`,
        headers: harness.customer.headers,
      });
      expect(opened.statusCode).toBe(503);
      expect(opened.body).toContain('agent isolation is required');
      expect(harness.context.services.agent.supervisor.peek(harness.customer.id)).toBeNull();
      // No runtime key was even issued.
      const keys = await harness.context.storage.db
        .selectFrom('agent_runtime_keys')
        .selectAll()
        .where('customer_id', '=', harness.customer.id)
        .execute();
      expect(keys).toEqual([]);
      expect(harness.upstream.requests).toEqual([]);
    });
  }, 60_000);

  it('auto without bubblewrap: warns loudly once and still runs agents (single-tenant developer set-up)', async () => {
    await withHarness({ isolation: 'auto', isolationBwrap: MISSING_BWRAP }, async (harness) => {
      const lines = isolationLines(harness);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, isolation: 'none' });
      expect(lines[0].msg).toContain('agent isolation: NONE');
      expect(lines[0].msg).toContain('single-tenant');
      const projectId = await harness.createProject();
      const opened = await harness.context.app.inject({
        method: 'POST',
        url: `/api/v1/projects/${projectId}/open`,
        headers: harness.customer.headers,
      });
      expect(opened.statusCode).toBe(200);
    });
  }, 60_000);

  it('none: warns that agents share the service user', async () => {
    await withHarness({ isolation: 'none' }, async (harness) => {
      const lines = isolationLines(harness);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 40, isolation: 'none' });
      expect(lines[0].msg).toContain('agent.isolation = "none"');
      // No sandbox, no network namespace: the start-up line says so.
      const network = networkLines(harness);
      expect(network).toHaveLength(1);
      expect(network[0]).toMatchObject({ networkNamespace: false, egress: 'uncontrolled' });
      expect(network[0].msg).toContain('shared with this service');
    });
  }, 60_000);

  it.skipIf(SANDBOX_UNAVAILABLE !== null)(
    'auto with bubblewrap (the default): says bubblewrap, and the app-server runs inside it',
    async () => {
      await withHarness({}, async (harness) => {
        const lines = isolationLines(harness);
        expect(lines).toHaveLength(1);
        expect(lines[0]).toMatchObject({ level: 30, isolation: 'bubblewrap' });
        const network = networkLines(harness);
        expect(network).toHaveLength(1);
        expect(network[0]).toMatchObject({ networkNamespace: true, egress: 'off', allowedDomains: 0 });
        expect(network[0].msg).toContain('a network namespace per sandbox');
        expect(network[0].msg).toContain('no egress');
        const server = await harness.context.services.agent.supervisor.acquire(harness.customer.id);
        const fs = await import('node:fs');
        expect(fs.readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')[0]).toBe('/usr/bin/bwrap');
      });
    },
    60_000,
  );
});

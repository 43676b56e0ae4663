/** App-server failures as client errors: one mapping for the project routes, the direct routes and the passthrough. */
import { describe, expect, it } from 'vitest';
import { INTERNAL_REFUSAL, isPublicRefusal, mapAppServerError } from '../../src/agent/appserver-errors.js';
import { AppServerError, AppServerExitedError, AppServerTimeoutError } from '../../src/appserver/errors.js';
import { AppError } from '../../src/kernel/errors.js';

const refusal = (message: string, data?: unknown) => new AppServerError(message, -32600, data);

describe('mapAppServerError', () => {
  it.each([
    ['thread not found: 0199', 404, 'Thread not found'],
    ['no rollout found for thread id 0199', 404, 'Thread not found'],
    ['failed to load rollout `/srv/data/codex-homes/3/sessions/x.jsonl`', 404, 'Thread not found'],
    ['failed to load configuration: sandbox_workspace_write.network_access must be a boolean', 400, INTERNAL_REFUSAL],
    ['cannot read /srv/data/codex-homes/7/config.toml', 400, INTERNAL_REFUSAL],
    ['bwrap: setting up uid map: Permission denied', 400, INTERNAL_REFUSAL],
    ['turn input must not be empty', 400, 'The agent refused the request: turn input must not be empty'],
  ])('%s → %i %s', (message, status, text) => {
    const mapped = mapAppServerError(refusal(message)) as AppError;
    expect(mapped).toBeInstanceOf(AppError);
    expect(mapped.status).toBe(status);
    expect(mapped.message).toBe(text);
  });

  it('names the field of an unknown permission profile, where the request keeps its fields, and keeps the original as the cause', () => {
    const original = refusal('failed to load configuration: default_permissions refers to unknown built-in profile `:nope`');
    for (const loc of ['body', 'params'] as const) {
      const mapped = mapAppServerError(original, loc) as AppError;
      expect(mapped.status).toBe(422);
      expect(mapped.issues).toEqual([
        { loc: [loc, 'permissions'], msg: 'Unknown permission profile :nope; see GET /api/v1/permissions', type: 'value_error' },
      ]);
      expect(JSON.stringify({ message: mapped.message, issues: mapped.issues })).not.toMatch(/configuration|default_permissions/);
      expect(mapped.cause).toBe(original);
    }
  });

  it('maps a dead process to 503 with Retry-After and a silent one to 504; anything else passes unchanged', () => {
    const exited = mapAppServerError(new AppServerExitedError('app-server exited')) as AppError;
    expect([exited.status, exited.retryAfterSeconds]).toEqual([503, 1]);
    expect((mapAppServerError(new AppServerTimeoutError('turn/start', 10)) as AppError).status).toBe(504);
    const other = new Error('x');
    expect(mapAppServerError(other)).toBe(other);
  });

  it('lets the passthrough forward only refusals whose text is not internal', () => {
    expect(isPublicRefusal(refusal('thread not found: 0199'))).toBe(true);
    expect(isPublicRefusal(refusal('unknown permission profile `custom`'))).toBe(false);
    expect(isPublicRefusal(refusal('invalid request', { path: '/srv/codex-homes/3/config.toml' }))).toBe(false);
  });
});

/** Read-only agent views: live defaults and runtime status, permission profiles and skills from the app-server. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Principal } from '../accounts/principal.js';
import { PINNED_APP_SERVER_VERSION } from '../appserver/client.js';
import type { AppServerSupervisor } from '../appserver/supervisor.js';
import type { AgentConfig } from '../config/sections/agent.js';
import type { RuntimeKeys } from './runtime-keys.js';

const run = promisify(execFile);

/** How each built-in permission profile reads as the legacy turn-level sandboxPolicy (clients ≤ 0.135.0). */
export const PROFILE_SANDBOX_POLICIES: Record<string, unknown> = {
  ':read-only': { type: 'readOnly', networkAccess: false },
  ':workspace': { type: 'workspaceWrite', writableRoots: [], networkAccess: false, excludeTmpdirEnvVar: false, excludeSlashTmp: false },
  ':danger-full-access': { type: 'dangerFullAccess' },
};

export interface AgentViewsDeps {
  supervisor: AppServerSupervisor;
  binary: string;
  runtimeKeys: RuntimeKeys;
  config: AgentConfig;
}

export class AgentViews {
  private binaryVersion: Promise<string | null> | null = null;

  constructor(private readonly deps: AgentViewsDeps) {}

  async status(principal: Principal) {
    const { config, supervisor } = this.deps;
    const customerId = principal.kind === 'customer' ? principal.customerId : null;
    const processes = supervisor.status();
    const own = customerId === null ? undefined : processes.find((entry) => entry.customerId === customerId);
    const server = customerId === null ? null : supervisor.peek(customerId);
    const account = server ? await server.client.callRaw('account/read', {}).catch(() => null) : null;
    return {
      defaults: {
        model: config.defaultModel,
        web_search: config.webSearch,
        reasoning_effort: config.reasoningEffort,
        approval_policy: config.approvalPolicy,
        sandbox: config.sandbox,
      },
      runtime: {
        app_server_version: processes.find((entry) => entry.version)?.version ?? (await this.installedVersion()),
        pinned_version: PINNED_APP_SERVER_VERSION,
        running_processes: processes.length,
        approval_timeout_ms: config.approvalTimeoutMs,
        idle_stop_ms: config.idleStopMs,
      },
      account:
        customerId === null
          ? null
          : {
              app_server_running: own !== undefined,
              pid: own?.pid ?? null,
              loaded_threads: own?.loadedThreads ?? 0,
              restarts: own?.restarts ?? 0,
              runtime_key: await this.deps.runtimeKeys.current(customerId),
              app_server_account: account,
            },
    };
  }

  async permissions(principal: Principal) {
    const server = await this.deps.supervisor.acquire(viewCustomer(principal));
    const listed = await server.call('permissionProfile/list', {});
    return {
      data: listed.data.map((profile) => ({ ...profile, sandbox_policy: PROFILE_SANDBOX_POLICIES[profile.id] ?? null })),
      default: { sandbox: this.deps.config.sandbox, approval_policy: this.deps.config.approvalPolicy },
    };
  }

  async skills(principal: Principal) {
    const server = await this.deps.supervisor.acquire(viewCustomer(principal));
    const listed = await server.call('skills/list', {});
    const seen = new Set<string>();
    const skills = listed.data.flatMap((entry) => entry.skills).filter((skill) => !seen.has(skill.name) && seen.add(skill.name));
    return {
      data: skills.map((skill) => ({ name: skill.name, description: skill.description, scope: skill.scope, enabled: skill.enabled })),
    };
  }

  private installedVersion(): Promise<string | null> {
    this.binaryVersion ??= run(this.deps.binary, ['--version'], { timeout: 10_000 })
      .then(({ stdout }) => /(\d+\.\d+\.\d+\S*)/.exec(stdout)?.[1] ?? null)
      .catch(() => null);
    return this.binaryVersion;
  }
}

/** Operators have no app-server of their own; their read-only views use a process that never calls a model. */
function viewCustomer(principal: Principal): number {
  return principal.kind === 'customer' ? principal.customerId : 0;
}

/**
 * The one permission rule set of every surface. Clients up to 0.135.0 send the legacy `sandboxPolicy` (a tagged
 * object, turn level) or a thread-level `sandbox` mode; newer clients send a permission profile as `permissions`
 * or `permissionProfile` (an id, a built-in name without its colon, or `{id}`). The pinned app-server takes
 * `permissions` (experimental capability, which the bridge always enables) and never together with
 * `sandbox`/`sandboxPolicy`, so exactly one form is forwarded. Project turns, direct threads and turns and the
 * passthrough all translate here, so one selection means the same on each.
 */
import type { JsonValue } from '../appserver/generated/serde_json/JsonValue.js';
import type { SandboxMode, SandboxPolicy } from '../appserver/protocol.js';
import { validationError, type ValidationIssue } from '../kernel/errors.js';

export interface PermissionSelection {
  /** Thread-level sandbox mode (`read-only`, `workspace-write`, `danger-full-access`; camelCase accepted). */
  sandbox?: unknown;
  /** Legacy policy object, e.g. `{type:"workspaceWrite", networkAccess:false}`. */
  sandboxPolicy?: unknown;
  /** Permission profile id (`:read-only`, `:workspace`, `:danger-full-access` or a configured one), or `{id}`. */
  permissions?: unknown;
  /** Alias of `permissions` used by newer clients. */
  permissionProfile?: unknown;
}

export interface ThreadPermissions {
  sandbox?: SandboxMode;
  permissions?: string;
  config?: Record<string, JsonValue>;
}

export interface TurnPermissions {
  sandboxPolicy?: SandboxPolicy;
  permissions?: string;
}

const PROFILE_ALIASES: Record<string, string> = {
  'read-only': ':read-only',
  readOnly: ':read-only',
  workspace: ':workspace',
  'workspace-write': ':workspace',
  workspaceWrite: ':workspace',
  'danger-full-access': ':danger-full-access',
  dangerFullAccess: ':danger-full-access',
  'full-access': ':danger-full-access',
};

const SANDBOX_MODES: Record<string, SandboxMode> = {
  'read-only': 'read-only',
  readOnly: 'read-only',
  'workspace-write': 'workspace-write',
  workspaceWrite: 'workspace-write',
  'danger-full-access': 'danger-full-access',
  dangerFullAccess: 'danger-full-access',
};

const POLICY_TYPE_OF_MODE: Record<SandboxMode, string> = {
  'read-only': 'readOnly',
  'workspace-write': 'workspaceWrite',
  'danger-full-access': 'dangerFullAccess',
};

/** `permissions` / `permissionProfile` → one profile id (built-in names also without the leading colon). */
function profileOf(selection: PermissionSelection, loc: (string | number)[], issues: ValidationIssue[]): string | undefined {
  const read = (value: unknown, field: string): string | undefined => {
    if (value === undefined || value === null) return undefined;
    const id = typeof value === 'object' && !Array.isArray(value) ? (value as { id?: unknown }).id : value;
    if (typeof id !== 'string' || id.length === 0) {
      issues.push({ loc: [...loc, field], msg: 'A permission profile is a non-empty id such as ":workspace"', type: 'value_error' });
      return undefined;
    }
    return PROFILE_ALIASES[id] ?? id;
  };
  const permissions = read(selection.permissions, 'permissions');
  const profile = read(selection.permissionProfile, 'permissionProfile');
  if (permissions !== undefined && profile !== undefined && permissions !== profile) {
    issues.push({
      loc: [...loc, 'permissionProfile'],
      msg: 'permissions and permissionProfile name the same setting; send one',
      type: 'value_error',
    });
  }
  return permissions ?? profile;
}

function modeOf(value: unknown, loc: (string | number)[], issues: ValidationIssue[]): SandboxMode | undefined {
  if (value === undefined || value === null) return undefined;
  const mode = typeof value === 'string' ? SANDBOX_MODES[value] : undefined;
  if (!mode) issues.push({ loc, msg: 'sandbox must be one of read-only, workspace-write, danger-full-access', type: 'enum' });
  return mode;
}

function present(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/** For thread/start, thread/resume and thread/fork (which know only the `sandbox` mode and `permissions`). */
export function threadPermissions(selection: PermissionSelection, loc: (string | number)[] = ['body']): ThreadPermissions {
  const issues: ValidationIssue[] = [];
  const profile = profileOf(selection, loc, issues);
  const result: ThreadPermissions = {};
  if (profile !== undefined && (present(selection.sandbox) || present(selection.sandboxPolicy))) {
    issues.push({
      loc: [...loc, 'permissions'],
      msg: 'Send either a permission profile or a sandbox (sandbox / sandboxPolicy), not both',
      type: 'value_error',
    });
  } else if (profile !== undefined) {
    result.permissions = profile;
  } else if (present(selection.sandbox) && present(selection.sandboxPolicy)) {
    issues.push({ loc: [...loc, 'sandboxPolicy'], msg: 'Send either sandbox or sandboxPolicy, not both', type: 'value_error' });
  } else if (present(selection.sandbox)) {
    result.sandbox = modeOf(selection.sandbox, [...loc, 'sandbox'], issues);
  } else if (present(selection.sandboxPolicy)) {
    Object.assign(result, threadSandboxFromPolicy(selection.sandboxPolicy, [...loc, 'sandboxPolicy'], issues));
  }
  if (issues.length > 0) throw validationError(issues);
  return result;
}

/** A legacy policy at thread level: the mode, and the workspace-write details as per-thread config. */
function threadSandboxFromPolicy(value: unknown, loc: (string | number)[], issues: ValidationIssue[]): ThreadPermissions {
  const policy = validPolicy(value, loc);
  switch (policy.type) {
    case 'readOnly':
      if (policy.networkAccess)
        issues.push({
          loc: [...loc, 'networkAccess'],
          msg: 'A read-only sandbox with network access can only be set per turn',
          type: 'value_error',
        });
      return { sandbox: 'read-only' };
    case 'workspaceWrite':
      return {
        sandbox: 'workspace-write',
        config: {
          'sandbox_workspace_write.writable_roots': policy.writableRoots,
          'sandbox_workspace_write.network_access': policy.networkAccess,
          'sandbox_workspace_write.exclude_tmpdir_env_var': policy.excludeTmpdirEnvVar,
          'sandbox_workspace_write.exclude_slash_tmp': policy.excludeSlashTmp,
        },
      };
    case 'dangerFullAccess':
      return { sandbox: 'danger-full-access' };
    default:
      issues.push({ loc: [...loc, 'type'], msg: 'externalSandbox can only be set per turn', type: 'value_error' });
      return {};
  }
}

const SANDBOX_TYPES = ['dangerFullAccess', 'readOnly', 'workspaceWrite', 'externalSandbox'];

/** A legacy policy object, checked, with its required fields filled with the app-server's defaults. */
function validPolicy(value: unknown, loc: (string | number)[]): SandboxPolicy {
  const input = value as { type?: unknown; [key: string]: unknown };
  if (value === null || typeof value !== 'object' || Array.isArray(value) || typeof input.type !== 'string') {
    throw validationError([{ loc: [...loc, 'type'], msg: 'sandboxPolicy is an object with a type', type: 'value_error' }]);
  }
  if (!SANDBOX_TYPES.includes(input.type)) {
    throw validationError([{ loc: [...loc, 'type'], msg: `type must be one of ${SANDBOX_TYPES.join(', ')}`, type: 'enum' }]);
  }
  const networkAccess = input.networkAccess === true;
  switch (input.type) {
    case 'readOnly':
      return { type: 'readOnly', networkAccess };
    case 'workspaceWrite':
      return {
        type: 'workspaceWrite',
        writableRoots: Array.isArray(input.writableRoots) ? (input.writableRoots as string[]) : [],
        networkAccess,
        excludeTmpdirEnvVar: input.excludeTmpdirEnvVar === true,
        excludeSlashTmp: input.excludeSlashTmp === true,
      };
    case 'externalSandbox':
      return { type: 'externalSandbox', networkAccess: input.networkAccess === 'enabled' ? 'enabled' : 'restricted' };
    default:
      return { type: 'dangerFullAccess' };
  }
}

/** For turn/start and thread/settings/update: a profile or the legacy policy (a thread `sandbox` mode becomes its policy). */
export function turnPermissions(selection: PermissionSelection, loc: (string | number)[] = ['body']): TurnPermissions {
  const issues: ValidationIssue[] = [];
  const profile = profileOf(selection, loc, issues);
  const mode = present(selection.sandboxPolicy) ? undefined : modeOf(selection.sandbox, [...loc, 'sandbox'], issues);
  if (issues.length > 0) throw validationError(issues);
  const policy = present(selection.sandboxPolicy)
    ? selection.sandboxPolicy
    : mode === undefined
      ? undefined
      : { type: POLICY_TYPE_OF_MODE[mode] };
  if (profile !== undefined && policy !== undefined) {
    throw validationError([
      {
        loc: [...loc, 'sandboxPolicy'],
        msg: 'Send either a permission profile (permissions) or the legacy sandboxPolicy, not both',
        type: 'value_error',
      },
    ]);
  }
  if (profile !== undefined) return { permissions: profile };
  if (policy !== undefined) return { sandboxPolicy: validPolicy(policy, [...loc, 'sandboxPolicy']) };
  return {};
}

/** The writable roots a selection names (each must lie inside the caller's workspace). */
export function writableRootsOf(selection: { sandboxPolicy?: SandboxPolicy; config?: Record<string, JsonValue> }): string[] {
  const fromPolicy = selection.sandboxPolicy?.type === 'workspaceWrite' ? selection.sandboxPolicy.writableRoots : [];
  const fromConfig = selection.config?.['sandbox_workspace_write.writable_roots'];
  return [...fromPolicy, ...(Array.isArray(fromConfig) ? (fromConfig as string[]) : [])];
}

/**
 * The passthrough's guard: which app-server methods a caller may send, and how their params are confined.
 * Working directories, workspace roots, file paths and writable roots are forced into the caller's workspace
 * root; thread ids must be the caller's; the permission selection is translated for the pinned app-server
 * (see compat.ts). Methods that run commands outside the agent's sandbox and approvals, change the shared
 * configuration, or touch the account or login are refused before anything is sent.
 */
import { threadPermissions, turnPermissions, type PermissionSelection } from '../agent/permissions.js';
import type { WorkspaceRoots } from './workspace.js';

/** JSON-RPC error codes of the passthrough's own refusals. */
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_REFUSED = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_SERVER_ERROR = -32000;

export class RpcRefusal extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcRefusal';
  }
}

type Params = Record<string, unknown>;

export interface GuardContext {
  customerId: number;
  workspace: WorkspaceRoots;
}

/** `read`: allowed on any of the caller's threads; `write`: not on threads of managed projects. */
export type ThreadAccess = 'none' | 'read' | 'write';

interface Rule {
  thread: ThreadAccess;
  confine?(params: Params, context: GuardContext): Promise<Params>;
}

const REFUSED: [RegExp, string][] = [
  [/^thread\/shellCommand$/, 'runs a shell command outside the agent sandbox and approvals'],
  [/^(command\/exec|process\/)/, 'runs processes outside the agent sandbox and approvals'],
  [
    /^config\/(value\/write|batchWrite|mcpServer\/reload)$|^skills\/(config\/write|extraRoots\/set)$|^experimentalFeature\/enablement\/set$/,
    'changes the shared configuration',
  ],
  [/^account\/|^getAuthStatus$|login/i, 'concerns the app-server account or login, which this service manages'],
  [/^thread\/unsubscribe$/, 'would stop the notifications this service relies on'],
];

/** Thread config keys a caller may set per thread (everything else could redirect the provider or the sandbox). */
const THREAD_CONFIG_KEYS =
  /^(model_reasoning_effort|model_reasoning_summary|model_verbosity|web_search|sandbox_workspace_write\.(writable_roots|network_access|exclude_tmpdir_env_var|exclude_slash_tmp))$/;
/** Fields of thread/start, resume and fork that name other providers, tools, environments or rollout files. */
const THREAD_FIELDS_REFUSED = ['modelProvider', 'dynamicTools', 'environments', 'selectedCapabilityRoots', 'path', 'history'];

async function inside(context: GuardContext, value: unknown, field: string): Promise<string> {
  if (typeof value !== 'string' || value.length === 0) throw new RpcRefusal(RPC_INVALID_PARAMS, `${field} must be a path`);
  return context.workspace.inside(context.customerId, value, ['body', 'params', field]);
}

async function workingDirectory(params: Params, context: GuardContext, required: boolean): Promise<void> {
  if (params.cwd === undefined || params.cwd === null) {
    if (required) params.cwd = await context.workspace.root(context.customerId);
    return;
  }
  if (typeof params.cwd !== 'string') throw new RpcRefusal(RPC_INVALID_PARAMS, 'cwd must be a path');
  params.cwd = await context.workspace.workingDirectory(context.customerId, params.cwd, ['body', 'params', 'cwd']);
}

async function pathList(params: Params, field: string, context: GuardContext, fallbackToRoot: boolean): Promise<void> {
  const value = params[field];
  if (value === undefined || value === null || (Array.isArray(value) && value.length === 0)) {
    if (fallbackToRoot) params[field] = [await context.workspace.root(context.customerId)];
    return;
  }
  const list = Array.isArray(value) ? value : [value];
  const confined = await Promise.all(list.map((entry, index) => inside(context, entry, `${field}[${index}]`)));
  params[field] = Array.isArray(value) ? confined : confined[0];
}

function selection(params: Params): PermissionSelection {
  const picked = {
    sandbox: params.sandbox,
    sandboxPolicy: params.sandboxPolicy,
    permissions: params.permissions,
    permissionProfile: params.permissionProfile,
  };
  delete params.sandbox;
  delete params.sandboxPolicy;
  delete params.permissions;
  delete params.permissionProfile;
  return picked;
}

async function writableRoots(roots: unknown, context: GuardContext): Promise<string[]> {
  return Promise.all((Array.isArray(roots) ? roots : []).map((root, index) => inside(context, root, `writableRoots[${index}]`)));
}

async function confineThread(params: Params, context: GuardContext, cwdRequired: boolean): Promise<Params> {
  for (const field of THREAD_FIELDS_REFUSED) {
    if (params[field] !== undefined && params[field] !== null)
      throw new RpcRefusal(RPC_INVALID_PARAMS, `${field} is not accepted through this passthrough`);
  }
  await workingDirectory(params, context, cwdRequired);
  await pathList(params, 'runtimeWorkspaceRoots', context, false);
  const config = { ...((params.config as Params | null | undefined) ?? {}) };
  for (const key of Object.keys(config)) {
    if (!THREAD_CONFIG_KEYS.test(key))
      throw new RpcRefusal(RPC_INVALID_PARAMS, `config key ${key} is not accepted through this passthrough`);
  }
  const translated = threadPermissions(selection(params), ['params']);
  if (translated.permissions !== undefined) params.permissions = translated.permissions;
  if (translated.sandbox !== undefined) params.sandbox = translated.sandbox;
  Object.assign(config, translated.config);
  if (config['sandbox_workspace_write.writable_roots'] !== undefined) {
    config['sandbox_workspace_write.writable_roots'] = await writableRoots(config['sandbox_workspace_write.writable_roots'], context);
  }
  if (Object.keys(config).length > 0) params.config = config;
  return params;
}

async function confineTurn(params: Params, context: GuardContext): Promise<Params> {
  if (params.environments !== undefined && params.environments !== null)
    throw new RpcRefusal(RPC_INVALID_PARAMS, 'environments is not accepted through this passthrough');
  await workingDirectory(params, context, false);
  await pathList(params, 'runtimeWorkspaceRoots', context, false);
  const translated = turnPermissions(selection(params), ['params']);
  if (translated.permissions !== undefined) params.permissions = translated.permissions;
  if (translated.sandboxPolicy !== undefined) {
    params.sandboxPolicy =
      translated.sandboxPolicy.type === 'workspaceWrite'
        ? { ...translated.sandboxPolicy, writableRoots: await writableRoots(translated.sandboxPolicy.writableRoots, context) }
        : translated.sandboxPolicy;
  }
  await confineInput(params, context);
  return params;
}

/** Input items that name files (local images, mentions, skills) must name files in the workspace. */
async function confineInput(params: Params, context: GuardContext): Promise<void> {
  if (!Array.isArray(params.input)) return;
  params.input = await Promise.all(
    (params.input as Params[]).map(async (item, index) =>
      item && typeof item === 'object' && typeof item.path === 'string'
        ? { ...item, path: await inside(context, item.path, `input[${index}].path`) }
        : item,
    ),
  );
}

const fsPaths = (...fields: string[]): Rule => ({
  thread: 'none',
  async confine(params, context) {
    for (const field of fields) params[field] = await inside(context, params[field], field);
    return params;
  },
});

const plain: Rule = { thread: 'none' };
const readThread: Rule = { thread: 'read' };
const writeThread: Rule = { thread: 'write' };

export const RPC_RULES: Readonly<Record<string, Rule>> = {
  'thread/start': { thread: 'none', confine: (params, context) => confineThread(params, context, true) },
  'thread/resume': { thread: 'write', confine: (params, context) => confineThread(params, context, false) },
  'thread/fork': { thread: 'write', confine: (params, context) => confineThread(params, context, false) },
  'thread/list': { thread: 'none', confine: async (params, context) => (await pathList(params, 'cwd', context, false), params) },
  'thread/loaded/list': plain,
  'thread/read': readThread,
  'thread/turns/list': readThread,
  'thread/items/list': readThread,
  'thread/goal/get': readThread,
  'thread/goal/set': writeThread,
  'thread/goal/clear': writeThread,
  'thread/name/set': writeThread,
  'thread/archive': writeThread,
  'thread/unarchive': writeThread,
  'thread/compact/start': writeThread,
  'thread/rollback': writeThread,
  'thread/settings/update': { thread: 'write', confine: confineTurn },
  'turn/start': { thread: 'write', confine: confineTurn },
  'turn/steer': { thread: 'write', confine: async (params, context) => (await confineInput(params, context), params) },
  'turn/interrupt': writeThread,
  'model/list': plain,
  'modelProvider/capabilities/read': plain,
  'permissionProfile/list': {
    thread: 'none',
    confine: async (params, context) => (await workingDirectory(params, context, false), params),
  },
  'collaborationMode/list': plain,
  'config/read': { thread: 'none', confine: async (params, context) => (await workingDirectory(params, context, false), params) },
  'skills/list': { thread: 'none', confine: async (params, context) => (await pathList(params, 'cwds', context, true), params) },
  'hooks/list': { thread: 'none', confine: async (params, context) => (await pathList(params, 'cwds', context, true), params) },
  'fs/readFile': fsPaths('path'),
  'fs/readDirectory': fsPaths('path'),
  'fs/getMetadata': fsPaths('path'),
  'fs/writeFile': fsPaths('path'),
  'fs/createDirectory': fsPaths('path'),
  'fs/remove': fsPaths('path'),
  'fs/copy': fsPaths('sourcePath', 'destinationPath'),
};

/** The rule of a method, or a refusal saying why it is not available. */
export function ruleFor(method: string): Rule {
  const rule = Object.hasOwn(RPC_RULES, method) ? RPC_RULES[method] : undefined;
  if (rule) return rule;
  const refused = REFUSED.find(([pattern]) => pattern.test(method));
  throw new RpcRefusal(
    RPC_METHOD_REFUSED,
    refused ? `${method} is refused: it ${refused[1]}` : `${method} is not available through this passthrough`,
  );
}

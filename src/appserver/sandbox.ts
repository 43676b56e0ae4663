/**
 * Each customer's app-server runs in a bubblewrap sandbox of its own: separate PID, mount, IPC and UTS
 * namespaces; system directories read-only; a private `/tmp`; a fresh `/proc` that shows only the sandbox's own
 * processes; the customer's workspace root and Codex home bound read-write at their own paths (so the paths the
 * service and the app-server exchange stay the same); the codex binary and the service-owned runtime folder (the
 * model catalog) read-only; nothing else of the service's data directory; and a network namespace of its own,
 * with only its own loopback: the app-server reaches the service's `/v1` (and, when allowed, the egress proxy)
 * through Unix sockets bridged onto that loopback (`sandbox-network.ts`).
 *
 * When the service runs as root, the app-server and every command it runs get a uid/gid of their own, derived
 * from the customer id in a configured range (`first + customerId`), and the customer's workspace root and
 * Codex home are handed to it. bubblewrap runs as root to build the namespaces, then `setpriv` drops to that uid
 * with no capabilities and `no_new_privs` before the codex binary starts.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import type { Logger } from 'pino';
import { AppError } from '../kernel/errors.js';
import { handOverTree } from '../kernel/tenant-fs.js';
import { SandboxLimits, type SandboxLimitSettings } from './limits.js';
import { bridgedCommand, bridgeMounts, egressEnv, MODEL_BRIDGE_PORT, type SandboxBridges } from './sandbox-network.js';

export type IsolationMode = 'auto' | 'required' | 'none';

export interface SandboxSettings {
  mode: IsolationMode;
  /** Path of the bubblewrap binary. */
  bwrap: string;
  /** Path of socat, which bridges the service's Unix sockets onto the sandbox's own loopback. */
  socat: string;
  /** First uid/gid of the per-customer range, and how many there are (used only when the service is root). */
  uidFirst: number;
  uidCount: number;
  /**
   * Paths of the service that must stay invisible even where they lie inside a system directory the sandbox
   * shows (the data dir, the config file, the static token file).
   */
  hidden: string[];
  /** Directories holding the codex binary and what it runs (bound read-only at their own paths). */
  codexDirs: string[];
  /** Resource limits, seccomp and the uid-range claim (see limits.ts); absent: none of them. */
  limits?: SandboxLimitSettings;
  /** The service's data dir (names the deployment's cgroups and uid-range claim). */
  dataDir?: string;
}

export interface SandboxPaths {
  workspaceRoot: string;
  codexHome: string;
  /** The service-owned folder of what the service writes for the app-server (model catalog): bound read-only. */
  runtimeDir?: string;
}

/** The command that starts one app-server, wrapped or not. */
export interface SandboxedCommand {
  binary: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}

const SETPRIV = '/usr/bin/setpriv';
/** The service's own PATH names folders the sandbox does not show. */
const SANDBOX_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';
/** System directories shown read-only (those absent on the host are skipped; symbolic links stay links). */
const SYSTEM_DIRS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'];

/** Thrown when an app-server must not start (isolation required but unavailable, uid range exhausted): a 503. */
export class SandboxUnavailableError extends AppError {
  constructor(message: string) {
    super('UPSTREAM_UNAVAILABLE', `The agent runtime is unavailable: ${message}`);
    this.name = 'SandboxUnavailableError';
  }
}

export class AppServerSandbox {
  private constructor(
    readonly kind: 'bubblewrap' | 'none',
    private readonly settings: SandboxSettings,
    /** Why bubblewrap is not used (for `required`, why starts are refused). */
    readonly reason: string | null,
    private readonly runAsRoot: boolean,
    /** What bounds each sandbox (bubblewrap with `settings.limits` only). */
    readonly limits: SandboxLimits | null = null,
  ) {}

  /**
   * Decides once, at start, which isolation the service uses, and logs one line saying which: `auto` tries
   * bubblewrap (a real sandbox start, with the uid drop when root) and falls back to none with a loud warning.
   */
  static async detect(settings: SandboxSettings, logger: Logger, isRoot = process.getuid?.() === 0): Promise<AppServerSandbox> {
    if (settings.mode === 'none') {
      logger.warn(
        { isolation: 'none' },
        'agent isolation: none (agent.isolation = "none"); every app-server and the commands it runs share this service\'s user, files and processes — single-tenant developer set-ups only',
      );
      return new AppServerSandbox('none', settings, 'agent.isolation is "none"', isRoot);
    }
    const failure = await probe(settings, isRoot);
    if (failure === null) {
      logger.info(
        { isolation: 'bubblewrap', bwrap: settings.bwrap, perCustomerUid: isRoot ? `${settings.uidFirst}+customer id` : false },
        `agent isolation: bubblewrap (${settings.bwrap})${isRoot ? `, one uid per customer from ${settings.uidFirst}` : ', same uid as the service'}`,
      );
      const limits = settings.limits
        ? await SandboxLimits.setup(
            settings.limits,
            { dataDir: settings.dataDir ?? '', uidFirst: settings.uidFirst, uidCount: settings.uidCount, perCustomerUid: isRoot },
            logger,
          )
        : null;
      return new AppServerSandbox('bubblewrap', settings, null, isRoot, limits);
    }
    if (settings.mode === 'required') {
      logger.error(
        { isolation: 'unavailable', reason: failure },
        `agent isolation: REQUIRED BUT UNAVAILABLE (${failure}); app-servers will not start`,
      );
    } else {
      logger.warn(
        { isolation: 'none', reason: failure },
        `agent isolation: NONE — bubblewrap is unavailable (${failure}). Every customer's agent runs as this service's user and can read other customers' workspaces, this service's data directory and the environment of other processes. Acceptable for a single-tenant developer set-up only; install bubblewrap and set agent.isolation = "required" in production`,
      );
    }
    return new AppServerSandbox('none', settings, failure, isRoot);
  }

  /**
   * Throws when the customer's app-server must not start (isolation required but unavailable, customer id past
   * the uid range); else its uid/gid, or null when it keeps the service's own. Called before anything is issued.
   */
  check(customerId: number): number | null {
    if (this.kind === 'none' && this.settings.mode === 'required')
      throw new SandboxUnavailableError('agent isolation is required on this server and is not available');
    const refusal = this.limits?.refusal();
    if (refusal) throw new SandboxUnavailableError(refusal);
    return this.uidOf(customerId);
  }

  /** The uid/gid the customer's app-server runs as, or null when it keeps the service's own. */
  uidOf(customerId: number): number | null {
    if (this.kind !== 'bubblewrap' || !this.runAsRoot) return null;
    if (!Number.isSafeInteger(customerId) || customerId < 0 || customerId >= this.settings.uidCount) {
      throw new SandboxUnavailableError('this account is outside the agent sandbox uid range (agent.isolationUidCount)');
    }
    return this.settings.uidFirst + customerId;
  }

  /**
   * Creates the customer's folders, hands them to its uid, and returns the command that starts the app-server
   * (the bubblewrap wrapper around `binary args`, or the bare command when isolation is off).
   */
  async prepare(
    customerId: number,
    paths: SandboxPaths,
    binary: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    bridges: SandboxBridges | null = null,
  ): Promise<SandboxedCommand> {
    const uid = this.check(customerId);
    if (this.kind === 'none') return { binary, args, env };
    await fsp.mkdir(paths.workspaceRoot, { recursive: true, mode: 0o755 });
    await fsp.mkdir(paths.codexHome, { recursive: true, mode: 0o700 });
    const workspaceRoot = await fsp.realpath(paths.workspaceRoot);
    const codexHome = await fsp.realpath(paths.codexHome);
    if (uid !== null) {
      await handOver(workspaceRoot, uid);
      await handOver(codexHome, uid);
    }
    const realBinary = await fsp.realpath(binary);
    const sandboxArgs = bwrapArgs({
      hidden: this.settings.hidden,
      readOnly: uniqueDirs([...this.settings.codexDirs, path.dirname(realBinary), ...(paths.runtimeDir ? [paths.runtimeDir] : [])]),
      writable: [...new Set([workspaceRoot, codexHome])],
      chdir: codexHome,
      uid,
      tmpSizeBytes: this.limits?.config.tmpSizeBytes,
      extra: this.limits?.bwrapOptions(),
      mounts: bridges === null ? [] : bridgeMounts(bridges),
    });
    const program = bridges === null ? [realBinary, ...args] : bridgedCommand(bridges, this.settings.socat, [realBinary, ...args]);
    const inner = uid === null ? program : [...dropTo(uid), ...program];
    // TMPDIR is not an ancestor of a Codex home kept under /tmp, or Codex refuses to create the helper aliases
    // (`codex-linux-sandbox`) its own workspace-write sandbox needs.
    const sandboxEnv: NodeJS.ProcessEnv = {
      ...env,
      HOME: codexHome,
      TMPDIR: '/var/tmp',
      PATH: SANDBOX_PATH,
      ...(bridges === null ? {} : egressEnv(bridges)),
    };
    if (uid !== null) {
      sandboxEnv.USER = 'agent';
      sandboxEnv.LOGNAME = 'agent';
    }
    const command = [...sandboxArgs, '--', ...inner];
    if (this.limits) {
      const wrapped = await this.limits.wrap(customerId, this.settings.bwrap, command).catch((error: Error) => {
        throw new SandboxUnavailableError(`the sandbox limits could not be set up (${error.message})`);
      });
      return { ...wrapped, env: sandboxEnv };
    }
    return { binary: this.settings.bwrap, args: command, env: sandboxEnv };
  }
}

function dropTo(uid: number): string[] {
  return [SETPRIV, `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--'];
}

interface BwrapPlan {
  hidden: string[];
  readOnly: string[];
  writable: string[];
  chdir: string;
  uid: number | null;
  /** Size of each temporary folder (`/tmp`, `/var/tmp`, `/dev/shm`); unbounded when absent. */
  tmpSizeBytes?: number;
  /** Further options (the seccomp descriptor). */
  extra?: string[];
  /** Further mounts (the bridged sockets), after the folders. */
  mounts?: string[];
}

const within = (parent: string, child: string): boolean =>
  child === parent || child.startsWith(parent.endsWith('/') ? parent : `${parent}/`);

/** The bubblewrap options of one sandbox (exported for tests). */
export function bwrapArgs(plan: BwrapPlan): string[] {
  const args = [
    '--die-with-parent',
    '--new-session',
    '--unshare-pid',
    '--unshare-ipc',
    '--unshare-uts',
    '--unshare-net',
    '--unshare-cgroup-try',
    '--hostname',
    'agent',
  ];
  const systemDirs: string[] = [];
  for (const dir of SYSTEM_DIRS) {
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(dir);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) args.push('--symlink', fs.readlinkSync(dir), dir);
    else if (stat.isDirectory()) {
      args.push('--ro-bind', dir, dir);
      systemDirs.push(dir);
    }
  }
  args.push('--proc', '/proc', '--dev', '/dev');
  const sized = plan.tmpSizeBytes === undefined ? [] : ['--size', String(plan.tmpSizeBytes)];
  for (const dir of ['/tmp', '/var/tmp', '/dev/shm']) args.push('--perms', '1777', ...sized, '--tmpfs', dir);
  // What the service keeps inside a shown system directory (a config file under /etc, say) is covered up.
  const covered: string[] = [];
  for (const hidden of plan.hidden) {
    const real = realOrSelf(hidden);
    if (!systemDirs.some((dir) => within(dir, real))) continue;
    let stat: fs.Stats;
    try {
      stat = fs.statSync(real);
    } catch {
      continue;
    }
    if (stat.isDirectory()) {
      args.push('--perms', '0755', '--tmpfs', real);
      covered.push(real);
    } else {
      args.push('--ro-bind', '/dev/null', real);
    }
  }
  // Mount points outside the shown system directories are created on the sandbox's empty root (or a cover).
  const made = new Set<string>();
  const mountPoint = (target: string) => {
    if (systemDirs.some((dir) => within(dir, target)) && !covered.some((dir) => within(dir, target))) return;
    const parts = target.split('/').filter(Boolean);
    for (let i = 1; i < parts.length; i++) {
      const ancestor = `/${parts.slice(0, i).join('/')}`;
      if (made.has(ancestor) || ancestor === '/tmp' || covered.includes(ancestor)) continue;
      if (systemDirs.some((dir) => within(dir, ancestor)) && !covered.some((dir) => within(dir, ancestor))) continue;
      made.add(ancestor);
      args.push('--perms', '0755', '--dir', ancestor);
    }
  };
  for (const dir of plan.readOnly) {
    mountPoint(dir);
    args.push('--ro-bind', dir, dir);
  }
  for (const dir of plan.writable) {
    mountPoint(dir);
    args.push('--bind', dir, dir);
  }
  args.push(...(plan.mounts ?? []), '--chdir', plan.chdir, ...(plan.extra ?? []));
  // Root in the sandbox may change uid once (setpriv); every other capability is gone, and setpriv drops these too.
  if (plan.uid !== null) args.push('--cap-add', 'CAP_SETUID', '--cap-add', 'CAP_SETGID', '--cap-add', 'CAP_SETPCAP');
  return args;
}

function realOrSelf(target: string): string {
  try {
    return fs.realpathSync(target);
  } catch {
    return path.resolve(target);
  }
}

function uniqueDirs(dirs: string[]): string[] {
  const real = [...new Set(dirs.map(realOrSelf))].sort((a, b) => a.length - b.length);
  return real.filter((dir, index) => !real.slice(0, index).some((outer) => within(outer, dir)));
}

/**
 * Gives the tree to `uid` (through held folder descriptors, never following a link): entries the service owns
 * are handed over; entries of another owner and files with more than one hard link (which could be another
 * tree's file) are left alone.
 */
export async function handOver(root: string, uid: number, serviceUid = process.getuid?.() ?? 0): Promise<void> {
  await handOverTree(root, uid, serviceUid);
}

/**
 * Starts a throw-away sandbox exactly as app-servers get it (namespaces, uid drop, a bridged socket); null when it
 * ran, could write its folder, reached the service through the bridge and could not reach the host's loopback;
 * else why not.
 */
async function probe(settings: SandboxSettings, isRoot: boolean): Promise<string | null> {
  for (const [binary, what] of [
    [settings.bwrap, ''],
    [settings.socat, " (needed to bridge the service into the sandbox's network namespace)"],
    ...(isRoot ? [[SETPRIV, ' (needed to drop to a per-customer uid)']] : []),
  ]) {
    try {
      await fsp.access(binary!, fs.constants.X_OK);
    } catch {
      return `${binary} not found${what}`;
    }
  }
  const scratch = await fsp.mkdtemp(path.join(fs.realpathSync(process.env.TMPDIR ?? '/tmp'), 'switchyard-sandbox-probe-'));
  const uid = isRoot ? settings.uidFirst : null;
  const listeners = await probeListeners(path.join(scratch, 'probe.sock'), uid).catch((error: Error) => error);
  if (listeners instanceof Error) return `the sandbox probe could not listen: ${listeners.message}`;
  try {
    if (uid !== null) await fsp.chown(scratch, uid, uid);
    const bridges = { model: listeners.socket, egress: null };
    const args = bwrapArgs({ hidden: [], readOnly: [], writable: [scratch], chdir: scratch, uid, mounts: bridgeMounts(bridges) });
    const script = [
      'touch probe',
      `'${settings.socat}' -u TCP:127.0.0.1:${MODEL_BRIDGE_PORT} CREATE:bridged`,
      `'${settings.socat}' -u TCP:127.0.0.1:${listeners.tcpPort} CREATE:leaked 2>/dev/null || true`,
    ].join('\n');
    const program = bridgedCommand(bridges, settings.socat, ['/bin/sh', '-c', script]);
    const result = await run(settings.bwrap, [...args, '--', ...(uid === null ? program : [...dropTo(uid), ...program])]);
    if (result.code !== 0) return `bubblewrap failed: ${result.stderr.trim().split('\n')[0] || `exit ${result.code}`}`;
    const stat = await fsp.stat(path.join(scratch, 'probe')).catch(() => null);
    if (!stat) return 'bubblewrap ran but the sandbox could not write its bound folder';
    if (uid !== null && stat.uid !== uid) return `the sandbox did not run as uid ${uid}`;
    const bridged = await fsp.readFile(path.join(scratch, 'bridged'), 'utf8').catch(() => '');
    if (bridged !== PROBE_SOCKET_MARKER) return 'the sandbox could not reach the service through its bridged socket';
    const leaked = await fsp.readFile(path.join(scratch, 'leaked'), 'utf8').catch(() => '');
    if (leaked !== '') return "the sandbox reached the host's loopback (no network namespace of its own)";
    return null;
  } catch (error) {
    return `bubblewrap failed: ${(error as Error).message}`;
  } finally {
    await listeners.close();
    await fsp.rm(scratch, { recursive: true, force: true }).catch(() => undefined);
  }
}

const PROBE_SOCKET_MARKER = 'switchyard-probe-bridged\n';

/** A Unix socket (the probe's "service") and a host loopback port the sandbox must not reach; each answers a marker. */
async function probeListeners(socket: string, uid: number | null) {
  const answer = (text: string) => net.createServer((connection) => connection.end(text)).on('error', () => undefined);
  const unix = answer(PROBE_SOCKET_MARKER);
  const tcp = answer('host-loopback\n');
  const listen = (server: net.Server, target: net.ListenOptions) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(target, () => resolve());
    });
  const close = async () => {
    await Promise.all([unix, tcp].map((server) => new Promise((resolve) => server.close(resolve))));
  };
  try {
    await listen(unix, { path: socket });
    if (uid !== null) await fsp.chown(socket, uid, uid);
    await listen(tcp, { port: 0, host: '127.0.0.1' });
  } catch (error) {
    await close();
    throw error;
  }
  return { socket, tcpPort: (tcp.address() as net.AddressInfo).port, close };
}

function run(binary: string, args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], env: { PATH: '/usr/bin:/bin' } });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderr.length < 4096) stderr += chunk.toString('utf8');
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/**
 * The parts of the sandbox on their own: the app-server's environment allow-list, the static token file, the
 * bubblewrap options (what is hidden, what is bound), the hand-over of a workspace to a customer's uid, and a
 * real sandbox that cannot read a service file kept under a system folder.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { appServerArgs, appServerEnv, TOKEN_ENV_KEY } from '../../src/appserver/launch.js';
import { AppServerSandbox, bwrapArgs, handOver } from '../../src/appserver/sandbox.js';
import { ConfigError, loadEnv } from '../../src/config/env.js';
import { tempDir } from '../helpers/databases.js';
import { IS_ROOT, SANDBOX_UNAVAILABLE, UID_FIRST } from './sandbox-support.js';

const SERVICE_SECRETS = {
  SWITCHYARD_STATIC_TOKEN: 'static-operator-token-0123456789-abcdef',
  SWITCHYARD_STATIC_TOKEN_FILE: '/etc/switchyard/operator-token',
  SWITCHYARD_SECRET: 'server-secret-0123456789-0123456789-abcdef',
  DATABASE_URL: 'postgres://switchyard:pw@127.0.0.1/prod',
  REDIS_URL: 'redis://:pw@127.0.0.1:6379',
  OPENAI_API_KEY: 'sk-openai-provider-key',
  ANTHROPIC_API_KEY: 'sk-ant-provider-key',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  SWITCHYARD_CONFIG: '/etc/switchyard/config.json',
  NODE_OPTIONS: '--require /srv/inject.js',
};

describe('app-server environment and arguments', () => {
  it('passes an allow-list only: none of the service’s secrets reach the app-server', () => {
    const env = appServerEnv('/data/codex-homes/7', 'syw_runtime', {
      ...SERVICE_SECRETS,
      PATH: '/usr/bin',
      HOME: '/root',
      LANG: 'C.UTF-8',
    });
    expect(Object.keys(env).sort()).toEqual(['CODEX_HOME', 'HOME', 'LANG', 'LOG_FORMAT', 'PATH', 'TMPDIR', TOKEN_ENV_KEY].sort());
    expect(env.TMPDIR).toBe('/data/codex-homes/7/tmp');
    const text = JSON.stringify(env);
    for (const value of Object.values(SERVICE_SECRETS)) expect(text).not.toContain(value);
  });

  it('turns the shell snapshot off (it would replay the provider token into every command)', () => {
    const args = appServerArgs({
      serviceUrl: 'http://127.0.0.1:1',
      catalogFile: '/c.json',
      defaultModel: 'm',
      webSearch: 'disabled',
      reasoningEffort: 'low',
      approvalPolicy: 'never',
      sandbox: 'danger-full-access',
      providerRetries: 0,
    });
    expect(args.join(' ')).toContain('--disable shell_snapshot');
    expect(args.join(' ')).toContain(`shell_environment_policy.exclude=["${TOKEN_ENV_KEY}"]`);
  });
});

describe('SWITCHYARD_STATIC_TOKEN_FILE', () => {
  const file = (content: string) => {
    const target = path.join(tempDir('switchyard-token-'), 'token');
    fs.writeFileSync(target, content, { mode: 0o600 });
    return target;
  };

  it('reads the operator token from the file, trimmed, and remembers the file', () => {
    const target = file('  file-operator-token-0123456789-abc\n');
    const env = loadEnv({ SWITCHYARD_STATIC_TOKEN_FILE: target });
    expect(env.staticToken).toBe('file-operator-token-0123456789-abc');
    expect(env.staticTokenFile).toBe(target);
  });

  it('refuses both at once, an unreadable file and a short token, naming the variable', () => {
    const target = file('file-operator-token-0123456789-abc');
    expect(() => loadEnv({ SWITCHYARD_STATIC_TOKEN_FILE: target, SWITCHYARD_STATIC_TOKEN: 'x'.repeat(30) })).toThrow(ConfigError);
    expect(() => loadEnv({ SWITCHYARD_STATIC_TOKEN_FILE: '/nonexistent/token' })).toThrow(
      /SWITCHYARD_STATIC_TOKEN_FILE cannot be read \(ENOENT\)/,
    );
    expect(() => loadEnv({ SWITCHYARD_STATIC_TOKEN_FILE: file('short\n') })).toThrow(
      /SWITCHYARD_STATIC_TOKEN_FILE must be at least 24 characters/,
    );
  });
});

describe('bubblewrap options', () => {
  const plan = {
    hidden: [] as string[],
    readOnly: ['/opt/codex'],
    writable: ['/srv/data/workspaces/7', '/srv/data/codex-homes/7'],
    chdir: '/srv/data/codex-homes/7',
    uid: 3_000_007,
  };

  it('new PID/IPC/UTS/network namespaces, read-only system folders, fresh /proc, private /tmp, only the two customer folders writable', () => {
    const args = bwrapArgs(plan);
    const text = args.join(' ');
    for (const flag of ['--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-net', '--die-with-parent', '--new-session'])
      expect(args).toContain(flag);
    // The network namespace is never shared, whatever else the plan says.
    expect(args).not.toContain('--share-net');
    expect(text).toContain('--ro-bind /usr /usr');
    expect(text).toContain('--proc /proc');
    expect(text).toContain('--perms 1777 --tmpfs /tmp');
    expect(text).toContain('--perms 1777 --tmpfs /var/tmp');
    expect(text).toContain('--ro-bind /opt/codex /opt/codex');
    const binds = args.flatMap((arg, index) => (arg === '--bind' ? [args[index + 1]] : []));
    expect(binds).toEqual(plan.writable);
    expect(text).not.toMatch(/--(ro-)?bind \/srv\/data /);
    expect(text).toContain('--perms 0755 --dir /srv/data');
  });

  it('covers service files that lie inside a shown system folder (a config file under /etc, a folder)', () => {
    const args = bwrapArgs({ ...plan, hidden: ['/etc/hostname', '/etc/ssl', '/srv/data'] }).join(' ');
    expect(args).toContain('--ro-bind /dev/null /etc/hostname');
    expect(args).toContain('--tmpfs /etc/ssl');
    // Outside the shown folders nothing needs covering: it is not there to begin with.
    expect(args).not.toContain('--tmpfs /srv/data');
  });
});

describe.skipIf(!IS_ROOT)('hand-over of a workspace to the customer’s uid', () => {
  it('gives the service’s entries to the uid without following links or taking hard-linked files', async () => {
    const root = tempDir('switchyard-handover-');
    const outside = path.join(tempDir('switchyard-handover-outside-'), 'service-file');
    fs.writeFileSync(outside, 'service');
    fs.mkdirSync(path.join(root, 'sub'));
    fs.writeFileSync(path.join(root, 'sub/own.txt'), 'x');
    fs.symlinkSync(outside, path.join(root, 'link'));
    fs.writeFileSync(path.join(root, 'shared.txt'), 'y');
    fs.linkSync(path.join(root, 'shared.txt'), path.join(path.dirname(outside), 'hardlink'));
    await handOver(root, 3_000_042);
    expect(fs.statSync(root).uid).toBe(3_000_042);
    expect(fs.statSync(path.join(root, 'sub')).uid).toBe(3_000_042);
    expect(fs.statSync(path.join(root, 'sub/own.txt')).uid).toBe(3_000_042);
    expect(fs.lstatSync(path.join(root, 'link')).uid).toBe(3_000_042);
    expect(fs.statSync(outside).uid).toBe(0);
    expect(fs.statSync(path.join(root, 'shared.txt')).uid).toBe(0);
  });
});

describe.skipIf(SANDBOX_UNAVAILABLE !== null)('a real sandbox', () => {
  it('shows a service file kept under /etc as empty, and runs as the customer’s uid', async () => {
    const dataDir = tempDir('switchyard-parts-');
    const sandbox = await AppServerSandbox.detect(
      {
        mode: 'required',
        bwrap: '/usr/bin/bwrap',
        socat: '/usr/bin/socat',
        uidFirst: UID_FIRST,
        uidCount: 1_000,
        hidden: [dataDir, '/etc/hostname'],
        codexDirs: [],
      },
      pino({ level: 'silent' }),
    );
    expect(sandbox.kind).toBe('bubblewrap');
    const paths = { workspaceRoot: path.join(dataDir, 'workspaces/9'), codexHome: path.join(dataDir, 'codex-homes/9') };
    const command = await sandbox.prepare(9, paths, '/bin/sh', ['-c', 'id -u; cat /etc/hostname; echo end'], { PATH: '/usr/bin:/bin' });
    const result = spawnSync(command.binary, command.args, { env: command.env, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const expectedUid = IS_ROOT ? UID_FIRST + 9 : process.getuid!();
    expect(result.stdout).toBe(`${expectedUid}\nend\n`);
    expect(fs.statSync(paths.workspaceRoot).uid).toBe(expectedUid);
    // A customer id past the uid range gets no app-server (its uid would be another range's).
    if (IS_ROOT) expect(() => sandbox.check(1_000)).toThrow(/uid range/);
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';
import { signUp, type SignedUp } from '../chassis/support.js';
import { makeCertificate, paxRecord, startRepoHost, tarGz, zip, type RepoHost } from './support.js';

describe('assistant-desktop object workspace', () => {
  let context: TestContext;
  let repo: RepoHost;
  let alice: SignedUp;
  let bob: SignedUp;
  const enc = (text: string) => new TextEncoder().encode(text);
  const commit = 'a1b2c3d4e5f60718293a4b5c6d7e8f9012345678';

  beforeAll(async () => {
    const certificate = makeCertificate();
    repo = await startRepoHost(certificate);
    context = await createTestContext({
      config: {
        desktop: {
          objectWorkspace: {
            allowHosts: ['repo.test'],
            extraCaFile: certificate.certFile,
            maxEntries: 50,
            maxDownloadBytes: 2 * 1024 * 1024,
            maxUnpackedBytes: 32 * 1024 * 1024,
            maxCompressionRatio: 100,
            maxProjects: 3,
          },
        },
      } as never,
    });
    context.services.objectWorkspace.resolve = async (host) => {
      if (host !== 'repo.test') throw new Error('ENOTFOUND');
      return [{ address: '127.0.0.1', family: 4 }];
    };
    alice = await signUp(context, 'alice');
    bob = await signUp(context, 'bob');
  });
  afterAll(async () => {
    await context.close();
    await repo.close();
  });

  const post = (who: SignedUp, url: string, payload?: unknown) =>
    context.app.inject({
      method: 'POST',
      url,
      headers: bearer(who.systemToken),
      ...(payload === undefined ? {} : { payload: payload as never }),
    });
  const root = (who: SignedUp) => path.join(context.dataDir, 'object-workspaces', `c${who.customerId}`);
  const store = (who: SignedUp, name: string, file: string, extra = '') =>
    post(
      who,
      `/api/v1/assistant-desktop/object-workspace/repositories/${name}?sourceUrl=${encodeURIComponent(`https://repo.test:${repo.port}${file}`)}${extra}`,
    );
  const leftovers = (who: SignedUp) => fs.readdirSync(root(who)).filter((entry) => entry.startsWith('.'));

  it('ensures the private workspace idempotently; every route needs a bearer', async () => {
    const first = await post(alice, '/api/v1/assistant-desktop/object-workspace');
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ created: true, projects: [], repositories: [] });
    const again = await post(alice, '/api/v1/assistant-desktop/object-workspace');
    expect(again.json()).toMatchObject({ created: false, created_at: first.json().created_at });
    expect(fs.statSync(path.join(root(alice), 'projects')).isDirectory()).toBe(true);
    for (const url of [
      '/api/v1/assistant-desktop/object-workspace',
      '/api/v1/assistant-desktop/object-workspace/projects',
      '/api/v1/assistant-desktop/object-workspace/repositories/x?sourceUrl=https://repo.test/x.zip',
    ]) {
      expect((await context.app.inject({ method: 'POST', url, payload: { name: 'x' } })).statusCode).toBe(401);
    }
    expect(
      (await context.app.inject({ method: 'DELETE', url: '/api/v1/assistant-desktop/object-workspace/projects/owp_AAAAAAAAAAAAAAAAAAAA' }))
        .statusCode,
    ).toBe(401);
  });

  it('creates private project folders with a marker; names are validated; duplicates and the limit are 409', async () => {
    const created = await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', {
      name: 'Research notes',
      color: 'blue',
      tags: ['a'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const project = created.json();
    expect(project).toMatchObject({ name: 'Research notes', body: { name: 'Research notes', color: 'blue', tags: ['a'] } });
    expect(project.project_id).toMatch(/^owp_[A-Za-z0-9]{20}$/);
    const marker = JSON.parse(fs.readFileSync(path.join(root(alice), 'projects', project.project_id, '.project.json'), 'utf8'));
    expect(marker).toMatchObject({ project_id: project.project_id, name: 'Research notes' });

    for (const name of ['', '.', '..', '...', 'a/b', 'a\\b', '../x', ' lead', 'x'.repeat(101), 'nul\u0000', 'semi;colon', 42, null]) {
      const bad = await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { name });
      expect(bad.statusCode, `${JSON.stringify(name)}: ${bad.body}`).toBe(422);
    }
    expect((await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { color: 'no name' })).statusCode).toBe(422);
    const duplicate = await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'research NOTES' });
    expect(duplicate.statusCode).toBe(409);
    // Bob may use the same name: names are per customer.
    expect((await post(bob, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'Research notes' })).statusCode).toBe(201);
    expect((await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'two' })).statusCode).toBe(201);
    expect((await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'three' })).statusCode).toBe(201);
    expect((await post(alice, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'four' })).statusCode).toBe(409);
    const listed = (await post(alice, '/api/v1/assistant-desktop/object-workspace')).json().projects.map((p: { name: string }) => p.name);
    expect(listed.sort()).toEqual(['Research notes', 'three', 'two']);
    const folders = fs.readdirSync(path.join(root(alice), 'projects'));
    expect(folders).toHaveLength(3);
  });

  it("deletes a project marker; another customer's project or an unknown id is 404 and untouched", async () => {
    const project = (await post(bob, '/api/v1/assistant-desktop/object-workspace/projects', { name: 'bob-private' })).json();
    const del = (who: SignedUp, id: string) =>
      context.app.inject({
        method: 'DELETE',
        url: `/api/v1/assistant-desktop/object-workspace/projects/${id}`,
        headers: bearer(who.systemToken),
      });
    const foreign = await del(alice, project.project_id);
    const unknown = await del(alice, 'owp_AAAAAAAAAAAAAAAAAAAA');
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json().detail).toBe(unknown.json().detail);
    expect((await del(alice, 'not-an-id')).statusCode).toBe(422);
    expect(fs.existsSync(path.join(root(bob), 'projects', project.project_id, '.project.json'))).toBe(true);
    const own = await del(bob, project.project_id);
    expect(own.statusCode, own.body).toBe(200);
    expect(own.json()).toEqual({ project_id: project.project_id, deleted: true });
    expect(fs.existsSync(path.join(root(bob), 'projects', project.project_id))).toBe(false);
    expect((await del(bob, project.project_id)).statusCode).toBe(404);
  });

  it('stores a zip repository unpacked (wrapper folder stripped) and replaces it on a second fetch', async () => {
    repo.files.set(
      '/codeload/zip/main',
      zip({ [`demo-${commit}/`]: { 'README.md': enc('# demo'), src: { 'index.ts': enc('export {};') } } }),
    );
    const stored = await store(alice, 'demo', '/codeload/zip/main', '&commit=main');
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json()).toMatchObject({ repository_name: 'demo', format: 'zip', files: 2, bytes: 16, commit: 'main', replaced: false });
    const folder = path.join(root(alice), 'repositories', 'demo');
    expect(fs.readFileSync(path.join(folder, 'README.md'), 'utf8')).toBe('# demo');
    expect(fs.readFileSync(path.join(folder, 'src', 'index.ts'), 'utf8')).toBe('export {};');

    repo.files.set('/codeload/zip/v2', zip({ 'CHANGED.md': enc('v2') }));
    const again = await store(alice, 'demo', '/codeload/zip/v2');
    expect(again.statusCode, again.body).toBe(201);
    expect(again.json()).toMatchObject({ replaced: true, files: 1 });
    expect(fs.readdirSync(folder)).toEqual(['CHANGED.md']);
    expect(leftovers(alice)).toEqual([]);
    const listed = (await post(alice, '/api/v1/assistant-desktop/object-workspace')).json().repositories;
    expect(listed).toEqual([
      expect.objectContaining({ repository_name: 'demo', files: 1, source_url: `https://repo.test:${repo.port}/codeload/zip/v2` }),
    ]);
  });

  it('stores a GitHub-style tar.gz (pax global header with the commit, pax long path) and checks the commit named', async () => {
    const longName = `${'deep/'.repeat(30)}file.txt`;
    repo.files.set(
      '/codeload/tar.gz/abc',
      tarGz([
        { name: 'pax_global_header', type: 'g', data: paxRecord('comment', commit) },
        { name: `demo-${commit.slice(0, 7)}/`, type: '5' },
        { name: `demo-${commit.slice(0, 7)}/README.md`, data: 'tarball' },
        { name: 'PaxHeader', type: 'x', data: paxRecord('path', `demo-${commit.slice(0, 7)}/${longName}`) },
        { name: 'placeholder', data: 'long' },
      ]),
    );
    const stored = await store(alice, 'tarball', '/codeload/tar.gz/abc', `&commit=${commit.slice(0, 12)}`);
    expect(stored.statusCode, stored.body).toBe(201);
    expect(stored.json()).toMatchObject({ format: 'tar.gz', files: 2, embedded_commit: commit, commit: commit.slice(0, 12) });
    const folder = path.join(root(alice), 'repositories', 'tarball');
    expect(fs.readFileSync(path.join(folder, 'README.md'), 'utf8')).toBe('tarball');
    expect(fs.readFileSync(path.join(folder, longName), 'utf8')).toBe('long');

    const wrong = await store(alice, 'tarball-wrong', '/codeload/tar.gz/abc', '&commit=0000000');
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().detail).toMatch(/not 0000000/);
  });

  const refusals: [string, () => Buffer, number, RegExp][] = [
    ['zip-slip ../ entry', () => zip({ 'ok.txt': enc('x'), '../escape.txt': enc('pwned') }), 422, /escapes its folder/],
    ['zip-slip nested ../', () => zip({ 'a/../../escape.txt': enc('pwned') }), 422, /escapes its folder/],
    ['absolute zip entry', () => zip({ '/etc/cron.d/x': enc('pwned') }), 422, /absolute/],
    ['backslash zip entry', () => zip({ '..\\escape.txt': enc('pwned') }), 422, /backslash/],
    [
      'zip symlink entry',
      () => zip({ 'ok.txt': enc('x'), link: [enc('/etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }] }),
      422,
      /symbolic link/,
    ],
    [
      'tar ../ entry',
      () =>
        tarGz([
          { name: 'ok.txt', data: 'x' },
          { name: '../../escape.txt', data: 'pwned' },
        ]),
      422,
      /escapes its folder/,
    ],
    ['tar absolute entry', () => tarGz([{ name: '/tmp/escape.txt', data: 'pwned' }]), 422, /absolute/],
    [
      'tar symlink',
      () =>
        tarGz([
          { name: 'ok.txt', data: 'x' },
          { name: 'link', type: '2', linkname: '/etc/passwd' },
        ]),
      422,
      /symbolic link/,
    ],
    [
      'tar hardlink',
      () =>
        tarGz([
          { name: 'ok.txt', data: 'x' },
          { name: 'hard', type: '1', linkname: '/etc/passwd' },
        ]),
      422,
      /hard link/,
    ],
    [
      'tar pax path escaping',
      () =>
        tarGz([
          { name: 'PaxHeader', type: 'x', data: paxRecord('path', '../../escape.txt') },
          { name: 'innocent.txt', data: 'pwned' },
        ]),
      422,
      /escapes its folder/,
    ],
    ['zip bomb (ratio)', () => zip({ 'zeros.bin': new Uint8Array(8 * 1024 * 1024) }), 413, /compression ratio/],
    ['tar.gz bomb (ratio)', () => tarGz([{ name: 'zeros.bin', data: Buffer.alloc(8 * 1024 * 1024) }]), 413, /compression ratio/],
    [
      'too many entries',
      () => zip(Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}.txt`, enc(String(i))]))),
      413,
      /more than 50 entries/,
    ],
    ['oversize download', () => randomBytes(3 * 1024 * 1024), 413, /exceeds/],
    ['not an archive', () => Buffer.from('<html>not found</html>'), 422, /neither a zip nor a tar.gz/],
    ['corrupt gzip', () => Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), randomBytes(200)]), 422, /corrupt/],
  ];

  for (const [label, build, status, detail] of refusals) {
    it(`refuses ${label} with ${status} and leaves nothing behind`, async () => {
      const file = `/bad/${label.replace(/\W+/g, '-')}`;
      repo.files.set(file, build());
      const response = await store(alice, 'refused', file);
      expect(response.statusCode, response.body).toBe(status);
      expect(String(response.json().detail)).toMatch(detail);
      expect(fs.existsSync(path.join(root(alice), 'repositories', 'refused'))).toBe(false);
      expect(fs.existsSync(path.join(root(alice), 'escape.txt'))).toBe(false);
      expect(fs.existsSync(path.join(root(alice), 'repositories', 'escape.txt'))).toBe(false);
      expect(leftovers(alice)).toEqual([]);
      const row = await context.storage.db
        .selectFrom('object_workspace_repositories')
        .select('name')
        .where('customer_id', '=', alice.customerId)
        .where('name', '=', 'refused')
        .executeTakeFirst();
      expect(row).toBeUndefined();
    });
  }

  it('caps a download without content-length while reading; a refused refetch keeps the previous copy', async () => {
    repo.files.set('/chunked/big', randomBytes(3 * 1024 * 1024));
    const big = await store(alice, 'demo', '/chunked/big');
    expect(big.statusCode).toBe(413);
    expect(fs.readdirSync(path.join(root(alice), 'repositories', 'demo'))).toEqual(['CHANGED.md']);
    expect(leftovers(alice)).toEqual([]);
  });

  it('validates the repository name and query; an upstream error is a 502', async () => {
    expect((await store(alice, '...', '/x')).statusCode).toBe(422);
    expect((await store(alice, 'a%2Fb', '/x')).statusCode).toBe(422);
    expect((await post(alice, '/api/v1/assistant-desktop/object-workspace/repositories/x')).statusCode).toBe(422);
    expect((await store(alice, 'x', '/x', '&commit=%3Bevil')).statusCode).toBe(422);
    expect((await store(alice, 'missing', '/no-such-archive')).statusCode).toBe(502);
  });

  it('concurrent fetches of one folder run one after the other and leave one complete copy', async () => {
    repo.files.set('/race/a.zip', zip({ 'A.md': enc('a') }));
    repo.files.set('/race/b.zip', zip({ 'B.md': enc('b') }));
    const [a, b] = await Promise.all([store(bob, 'race', '/race/a.zip'), store(bob, 'race', '/race/b.zip')]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect([a.json().replaced, b.json().replaced].sort()).toEqual([false, true]);
    // The one that ran second replaced the first one's copy as a whole.
    expect(fs.readdirSync(path.join(root(bob), 'repositories', 'race'))).toEqual([a.json().replaced ? 'A.md' : 'B.md']);
    expect(leftovers(bob)).toEqual([]);
  });

  it('a download that stalls ends at the deadline with 504 and nothing stored', async () => {
    const certificate = makeCertificate();
    const slowHost = await startRepoHost(certificate);
    const quick = await createTestContext({
      config: { desktop: { objectWorkspace: { allowHosts: ['repo.test'], extraCaFile: certificate.certFile, timeoutMs: 1000 } } } as never,
    });
    try {
      quick.services.objectWorkspace.resolve = async () => [{ address: '127.0.0.1', family: 4 }];
      const carol = await signUp(quick, 'carol');
      const started = Date.now();
      const response = await quick.app.inject({
        method: 'POST',
        url: `/api/v1/assistant-desktop/object-workspace/repositories/slow?sourceUrl=${encodeURIComponent(`https://repo.test:${slowHost.port}/slow`)}`,
        headers: bearer(carol.systemToken),
      });
      expect(response.statusCode, response.body).toBe(504);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(fs.existsSync(path.join(quick.dataDir, 'object-workspaces', `c${carol.customerId}`, 'repositories', 'slow'))).toBe(false);
    } finally {
      await quick.close();
      await slowHost.close();
    }
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFilesFixture, type FilesFixture } from './fixture.js';

/** Paths a client might send; every one must be refused by read, write and tree alike. */
function traversalPayloads(fixture: FilesFixture): string[] {
  const canary = fixture.canaries[2]!;
  return [
    '../canary.txt',
    '../../canary.txt',
    '../../../canary.txt',
    '../../../../../../../../etc/passwd',
    '..',
    '../',
    '..//canary.txt',
    './../canary.txt',
    '.././canary.txt',
    'sub/../../canary.txt',
    'sub/./../../canary.txt',
    'sub/deeper/../../../canary.txt',
    'sub/..',
    'sub/../..',
    'inner/../../canary.txt',
    '/etc/passwd',
    '//etc/passwd',
    '/../canary.txt',
    canary,
    `${fixture.workspace}/../canary.txt`,
    '/proc/self/environ',
    '/proc/self/cwd/canary.txt',
    '..\\canary.txt',
    'sub\\..\\..\\canary.txt',
    '\\etc\\passwd',
    '\\\\server\\share\\canary.txt',
    'C:\\Windows\\win.ini',
    'C:/Windows/win.ini',
    'c:canary.txt',
    'Z:',
    '%2e%2e/canary.txt',
    '%2e%2e%2fcanary.txt',
    '..%2fcanary.txt',
    '%2E%2E/%2E%2E/canary.txt',
    '%252e%252e/canary.txt',
    '%252e%252e%252fcanary.txt',
    '..%252fcanary.txt',
    '%c0%ae%c0%ae/canary.txt',
    '..%c0%afcanary.txt',
    '%u002e%u002e/canary.txt',
    '..%00/canary.txt',
    '%00',
    'canary.txt\u0000',
    '\u0000../canary.txt',
    'sub/\u0000/x',
    '..\n/canary.txt',
    'sub/inside.txt\r\n',
    '\t../canary.txt',
    'a'.repeat(5_000),
    `${'a'.repeat(300)}/x.txt`,
    `${'b/'.repeat(600)}x.txt`,
    'escape',
    'escape/',
    'escape/canary.txt',
    'escape/new-folder/new.txt',
    'escape-file',
    'dangling',
    'sub/relative-escape',
    '.git/config',
    '.git/hooks/pre-commit',
  ];
}

describe('workspace confinement', () => {
  let fixture: FilesFixture;
  let before: string;

  beforeAll(async () => {
    fixture = await createFilesFixture();
    fs.mkdirSync(path.join(fixture.workspace, '.git', 'hooks'), { recursive: true });
    fs.writeFileSync(path.join(fixture.workspace, '.git', 'config'), '[core]\n');
    before = fixture.snapshotOutside();
  });
  afterAll(async () => fixture.context.close());

  const expectRefused = (response: { statusCode: number; body: string }, payload: string, action: string) => {
    expect(response.statusCode, `${action} ${JSON.stringify(payload.slice(0, 80))}`).toBeGreaterThanOrEqual(400);
    expect(response.statusCode, `${action} ${JSON.stringify(payload.slice(0, 80))}`).toBeLessThan(500);
    expect(response.body).not.toContain(fixture.canaryText);
    expect(response.body).not.toContain(Buffer.from(fixture.canaryText).toString('base64'));
    expect(response.body).not.toContain('root:');
    expect(JSON.parse(response.body)).toHaveProperty('code');
  };

  it('refuses at least 50 traversal payloads for read, write and tree and touches nothing outside', async () => {
    const payloads = traversalPayloads(fixture);
    expect(payloads.length).toBeGreaterThanOrEqual(50);
    const workspaceBefore = fs.readdirSync(fixture.workspace).sort();
    for (const payload of payloads) {
      const query = `?path=${encodeURIComponent(payload)}`;
      expectRefused(
        await fixture.context.app.inject({ method: 'GET', url: fixture.url('content', query), headers: fixture.owner }),
        payload,
        'read',
      );
      expectRefused(
        await fixture.context.app.inject({ method: 'GET', url: fixture.url('tree', query), headers: fixture.owner }),
        payload,
        'tree',
      );
      const write = await fixture.context.app.inject({
        method: 'PUT',
        url: fixture.url('content'),
        headers: fixture.owner,
        payload: { path: payload, content: 'overwritten' },
      });
      expectRefused(write, payload, 'write');
    }
    expect(fixture.snapshotOutside()).toBe(before);
    expect(fs.readdirSync(fixture.workspace).sort()).toEqual(workspaceBefore);
  });

  it('refuses encoded traversal sent raw in the query string (decoded once by the server)', async () => {
    for (const raw of [
      '%2e%2e%2fcanary.txt',
      '%2E%2E%2F%2E%2E%2Fcanary.txt',
      '%252e%252e%252fcanary.txt',
      '..%2F..%2Fcanary.txt',
      '%2Fetc%2Fpasswd',
      '..%5ccanary.txt',
      'canary.txt%00',
    ]) {
      for (const kind of ['content', 'tree'] as const) {
        expectRefused(
          await fixture.context.app.inject({ method: 'GET', url: fixture.url(kind, `?path=${raw}`), headers: fixture.owner }),
          raw,
          kind,
        );
      }
    }
    expect(fixture.snapshotOutside()).toBe(before);
  });

  it('never reads or writes outside while a folder link is swapped between inside and outside', async () => {
    const inside = path.join(fixture.workspace, 'swap-real');
    const target = path.join(fixture.workspace, 'swap');
    const staging = path.join(fixture.workspace, 'swap-next');
    fs.mkdirSync(inside);
    fs.writeFileSync(path.join(inside, 'canary.txt'), 'inside copy');
    fs.symlinkSync('swap-real', target);
    let swapping = true;
    let swaps = 0;
    // rename() over a symlink is atomic, so `swap` always exists and flips between the two targets; the
    // service's checks and uses run on the thread pool in parallel with these flips.
    const swapper = (async () => {
      while (swapping) {
        fs.symlinkSync(swaps % 2 === 0 ? fixture.outsideDir : 'swap-real', staging);
        fs.renameSync(staging, target);
        swaps += 1;
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const statuses = new Set<number>();
    for (let round = 0; round < 150; round += 1) {
      const responses = await Promise.all([
        fixture.context.app.inject({ method: 'GET', url: fixture.url('content', '?path=swap/canary.txt'), headers: fixture.owner }),
        fixture.context.app.inject({
          method: 'PUT',
          url: fixture.url('content'),
          headers: fixture.owner,
          payload: { path: 'swap/canary.txt', content: `round ${round}` },
        }),
        fixture.context.app.inject({
          method: 'PUT',
          url: fixture.url('content'),
          headers: fixture.owner,
          payload: { path: 'swap/made/new.txt', content: 'x' },
        }),
        fixture.context.app.inject({ method: 'GET', url: fixture.url('tree', '?path=swap'), headers: fixture.owner }),
      ]);
      for (const response of responses) {
        statuses.add(response.statusCode);
        expect(response.statusCode).toBeLessThan(500);
        expect(response.body).not.toContain(fixture.canaryText);
      }
    }
    swapping = false;
    await swapper;
    expect(swaps).toBeGreaterThan(50);
    // Both outcomes happened: served from inside, refused when the link was in place.
    expect([...statuses].some((status) => status < 300)).toBe(true);
    expect([...statuses].some((status) => status >= 400)).toBe(true);
    expect(fixture.snapshotOutside()).toBe(before);
  });
});

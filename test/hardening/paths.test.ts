/**
 * Paths no file system can take and folders that vanish under a write: 422 and 409, never a 500, on the files
 * routes, the direct routes and the JSON-RPC passthrough — answered before any app-server is involved.
 */
import fsPromises from 'node:fs/promises';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { bearer, createTestContext, type TestContext } from '../helpers/context.js';

let context: TestContext;
let headers: { authorization: string };
let customerId: number;
let projectId: string;
let workspace: string;

beforeAll(async () => {
  context = await createTestContext();
  const created = await context.services.customers.create({ email: `paths-${Math.random().toString(36).slice(2)}@example.com` });
  customerId = created.customer.id;
  headers = bearer(created.systemToken.key);
  const project = await context.services.projects.create(customerId, 'paths');
  projectId = project.id;
  workspace = project.workspaceDir;
});

afterAll(async () => context?.close());
afterEach(() => vi.restoreAllMocks());

const LONG = 'n'.repeat(300);
const LONG_MULTIBYTE = 'é'.repeat(128); // 256 bytes in UTF-8

describe('names over 255 bytes', () => {
  it.each([LONG, `ok/${LONG}/file.txt`, LONG_MULTIBYTE])('refuses a file write to %s with a 422 naming body.path', async (name) => {
    const response = await context.app.inject({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/files/content`,
      headers,
      payload: { path: name, content: 'x' },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc: ['body', 'path'], type: 'string_too_long' });
  });

  it('refuses a file read and a tree of an over-long name with a 422 naming query.path', async () => {
    for (const kind of ['content', 'tree']) {
      const response = await context.app.inject({
        method: 'GET',
        url: `/api/v1/projects/${projectId}/files/${kind}?path=${LONG}`,
        headers,
      });
      expect(response.statusCode, kind).toBe(422);
      expect(response.json().detail[0].loc).toEqual(['query', 'path']);
    }
  });

  it.each([
    ['POST', '/api/threads', { cwd: LONG }, ['body', 'cwd']],
    ['POST', '/api/projects/open', { cwd: `a/${LONG}` }, ['body', 'cwd']],
    ['POST', '/api/threads', { cwd: 'a/'.repeat(2100) }, ['body', 'cwd']],
  ] as const)('refuses %s %s with an over-long cwd: 422, nothing created', async (method, url, payload, loc) => {
    const response = await context.app.inject({ method, url, headers, payload });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc, type: 'string_too_long' });
    const root = await context.services.direct.workspaceRoot(customerId);
    expect(fs.readdirSync(root).some((entry) => entry.length > 255 || entry === 'a')).toBe(false);
  });

  it('refuses an over-long cwd filter on the thread list with a 422 naming query.cwd', async () => {
    const response = await context.app.inject({ method: 'GET', url: `/api/threads?cwd=${LONG}`, headers });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0].loc).toEqual(['query', 'cwd']);
  });

  it.each([
    ['fs/readFile', { path: LONG }, ['body', 'params', 'path']],
    ['fs/writeFile', { path: `x/${LONG}`, dataBase64: '' }, ['body', 'params', 'path']],
    ['fs/copy', { sourcePath: 'a', destinationPath: LONG }, ['body', 'params', 'destinationPath']],
    ['thread/start', { cwd: LONG }, ['body', 'params', 'cwd']],
  ] as const)('refuses %s over /api/rpc with an over-long name: HTTP 422, not "Internal error"', async (method, params, loc) => {
    const key = await context.app.inject({
      method: 'POST',
      url: '/api/v1/me/api-keys',
      headers,
      payload: { name: 'rpc', allowed_surfaces: ['rpc'] },
    });
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/rpc',
      headers: bearer(key.json().key),
      payload: { jsonrpc: '2.0', id: 1, method, params },
    });
    expect(response.statusCode).toBe(422);
    expect(response.json().detail[0]).toMatchObject({ loc, type: 'string_too_long' });
  });
});

describe('a folder that vanishes under a file write', () => {
  it('answers 409 when the parent folder is removed between opening it and writing, and leaves no temp file', async () => {
    const folder = path.join(workspace, 'vanishing');
    fs.mkdirSync(folder, { recursive: true });
    const lstat = fsPromises.lstat.bind(fsPromises);
    // The moment the write looks at the existing entry, the agent deletes the folder.
    vi.spyOn(fsPromises, 'lstat').mockImplementation(async (target, ...rest) => {
      if (String(target).endsWith('/note.txt')) fs.rmSync(folder, { recursive: true, force: true });
      return lstat(target as string, ...(rest as []));
    });
    const response = await context.app.inject({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/files/content`,
      headers,
      payload: { path: 'vanishing/note.txt', content: 'x' },
    });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'CONFLICT' });
    vi.restoreAllMocks();
    const again = await context.app.inject({
      method: 'PUT',
      url: `/api/v1/projects/${projectId}/files/content`,
      headers,
      payload: { path: 'vanishing/note.txt', content: 'y' },
    });
    expect(again.statusCode).toBe(201);
    expect(fs.readdirSync(folder)).toEqual(['note.txt']);
  });

  it('never answers 5xx while the folder is deleted and re-created in a loop', async () => {
    const folder = path.join(workspace, 'churn');
    let stop = false;
    const churn = (async () => {
      while (!stop) {
        fs.rmSync(folder, { recursive: true, force: true });
        fs.mkdirSync(folder, { recursive: true });
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const statuses = new Set<number>();
    for (let index = 0; index < 100; index++) {
      const response = await context.app.inject({
        method: 'PUT',
        url: `/api/v1/projects/${projectId}/files/content`,
        headers,
        payload: { path: `churn/f${index % 5}.txt`, content: 'x' },
      });
      statuses.add(response.statusCode);
    }
    stop = true;
    await churn;
    expect([...statuses].filter((status) => status >= 500)).toEqual([]);
  });
});

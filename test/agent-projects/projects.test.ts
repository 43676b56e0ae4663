import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, type TestContext } from '../helpers/context.js';

describe('managed project store and routes', () => {
  let context: TestContext;
  let alice: { id: number; key: string };
  let bob: { id: number; key: string };

  beforeAll(async () => {
    context = await createTestContext();
    const a = await context.services.customers.create({ email: 'alice@example.com' });
    const b = await context.services.customers.create({ email: 'bob@example.com' });
    alice = { id: a.customer.id, key: a.systemToken.key };
    bob = { id: b.customer.id, key: b.systemToken.key };
  });
  afterAll(async () => context.close());

  it('creates a project with one stable workspace folder under the data dir', async () => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/projects',
      headers: bearer(alice.key),
      payload: { name: 'site' },
    });
    expect(response.statusCode).toBe(201);
    const body = response.json();
    expect(body).toMatchObject({ name: 'site' });
    expect(body.id).toMatch(/^prj_[A-Za-z0-9]{24}$/);
    expect(body).not.toHaveProperty('workspace_dir');
    const project = await context.services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, body.id);
    const expected = fs.realpathSync(path.join(context.dataDir, 'workspaces', String(alice.id), body.id));
    expect(project.workspaceDir).toBe(expected);
    expect(fs.statSync(expected).isDirectory()).toBe(true);
    const again = await context.services.projects.requireOwned({ kind: 'operator', source: 'static', keyId: null }, body.id);
    expect(again.workspaceDir).toBe(expected);
  });

  it('accepts a missing name and rejects a bad one without creating anything', async () => {
    const unnamed = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: bearer(bob.key) });
    expect(unnamed.statusCode).toBe(201);
    expect(unnamed.json().name).toBeNull();
    const before = fs.readdirSync(path.join(context.dataDir, 'workspaces', String(bob.id))).length;
    for (const name of ['', 'x'.repeat(201), { text: 'a' }]) {
      const bad = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: bearer(bob.key), payload: { name } });
      expect(bad.statusCode).toBe(422);
      expect(bad.json().detail[0].loc).toEqual(['body', 'name']);
    }
    expect(fs.readdirSync(path.join(context.dataDir, 'workspaces', String(bob.id))).length).toBe(before);
  });

  it('lists newest first in pages with a cursor, only the caller’s projects', async () => {
    const created: string[] = [];
    const carol = await context.services.customers.create({ email: 'carol@example.com' });
    for (let index = 0; index < 7; index += 1) {
      created.push((await context.services.projects.create(carol.customer.id, `p${index}`)).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor ? `?limit=3&cursor=${cursor}` : '?limit=3';
      const page = await context.app.inject({ method: 'GET', url: `/api/v1/projects${query}`, headers: bearer(carol.systemToken.key) });
      expect(page.statusCode).toBe(200);
      const body = page.json() as { data: { id: string }[]; next_cursor: string | null };
      expect(body.data.length).toBeLessThanOrEqual(3);
      seen.push(...body.data.map((project) => project.id));
      cursor = body.next_cursor;
    } while (cursor);
    // Same-millisecond creations are ordered by id; the set and the page walk must match the store's order.
    expect(new Set(seen)).toEqual(new Set(created));
    expect(seen).toEqual((await context.services.projects.list(carol.customer.id, { limit: 100 })).map((project) => project.id));
    const others = await context.app.inject({ method: 'GET', url: '/api/v1/projects', headers: bearer(alice.key) });
    expect(others.json().data.some((project: { id: string }) => created.includes(project.id))).toBe(false);
  });

  it('rejects bad limits and foreign or unknown cursors', async () => {
    for (const limit of ['0', '101', 'x']) {
      const response = await context.app.inject({ method: 'GET', url: `/api/v1/projects?limit=${limit}`, headers: bearer(alice.key) });
      expect(response.statusCode).toBe(422);
    }
    const bobProject = (await context.services.projects.list(bob.id))[0]!;
    for (const cursor of [bobProject.id, 'prj_unknown', 'prj_AAAAAAAAAAAAAAAAAAAAAAAA']) {
      const response = await context.app.inject({ method: 'GET', url: `/api/v1/projects?cursor=${cursor}`, headers: bearer(alice.key) });
      expect(response.statusCode).toBe(422);
      expect(response.json().detail[0].loc).toEqual(['query', 'cursor']);
    }
  });

  it('lets the owner and operators read a project; another customer gets the same 404 as an unknown id', async () => {
    const project = await context.services.projects.create(alice.id, 'mine');
    const alicePrincipal = await context.services.identity.resolve(alice.key);
    const bobPrincipal = await context.services.identity.resolve(bob.key);
    expect((await context.services.projects.requireOwned(alicePrincipal, project.id)).id).toBe(project.id);
    for (const id of [project.id, 'prj_AAAAAAAAAAAAAAAAAAAAAAAA', '../etc', '']) {
      await expect(context.services.projects.requireOwned(bobPrincipal, id)).rejects.toMatchObject({
        code: 'NOT_FOUND',
        message: 'Project not found',
      });
    }
  });

  it('requires a customer key to create and lets operators list every project', async () => {
    const create = await context.app.inject({ method: 'POST', url: '/api/v1/projects', headers: operatorHeaders, payload: {} });
    expect(create.statusCode).toBe(403);
    const list = await context.app.inject({ method: 'GET', url: '/api/v1/projects?limit=100', headers: operatorHeaders });
    expect(list.statusCode).toBe(200);
    expect(list.json().data.length).toBeGreaterThanOrEqual(10);
    const anonymous = await context.app.inject({ method: 'GET', url: '/api/v1/projects' });
    expect(anonymous.statusCode).toBe(401);
  });
});

/**
 * Desktop coder projects with the SQLite-file database engine (the engine when the service is not told of a
 * PostgreSQL server): create or resume, name rules, slots bought from the wallet with Idempotency-Key, the slot
 * limit under concurrent creates, deletion, the bootstrap listing, another customer's names (404) and another
 * customer's reach for a project's database file (its id 404, path escapes refused).
 * The service storage follows the test dialect, so every slot and wallet rule runs on SQLite and PostgreSQL.
 */
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, type TestContext } from '../helpers/context.js';
import { billingContext, credit, expectLedgerConsistent, newCustomer, walletOf, type TestCustomer } from '../billing/helpers.js';

const PRICE = 1_000_000;

describe('desktop coder projects (SQLite database files)', () => {
  let context: TestContext;
  let alice: TestCustomer;
  let bob: TestCustomer;

  beforeAll(async () => {
    context = await billingContext({ config: { desktop: { coder: { freeSlots: 2, slotPriceMicros: PRICE, maxSlots: 5 } } } });
    alice = await newCustomer(context);
    bob = await newCustomer(context);
  });
  afterAll(async () => {
    await expectLedgerConsistent(context);
    await context.close();
  });

  const create = (who: TestCustomer, name: unknown) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects',
      headers: bearer(who.systemToken),
      payload: { name } as never,
    });
  const list = (who: TestCustomer) =>
    context.app.inject({ method: 'GET', url: '/api/v1/desktop/coder/projects', headers: bearer(who.systemToken) });
  const remove = (who: TestCustomer, name: string) =>
    context.app.inject({
      method: 'DELETE',
      url: `/api/v1/desktop/coder/projects/${encodeURIComponent(name)}`,
      headers: bearer(who.systemToken),
    });
  const purchase = (who: TestCustomer, key?: string) =>
    context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects/purchase-slot',
      headers: { ...bearer(who.systemToken), ...(key === undefined ? {} : { 'idempotency-key': key }) },
    });
  const databaseFileOf = async (projectId: string) => {
    const project = await context.storage.db
      .selectFrom('projects')
      .select('workspace_dir')
      .where('id', '=', projectId)
      .executeTakeFirstOrThrow();
    return path.join(project.workspace_dir, 'database.sqlite');
  };
  const rowsOf = (customerId: number) =>
    context.storage.db.selectFrom('desktop_coder_projects').selectAll().where('customer_id', '=', customerId).execute();

  it('creates a project with a workspace (a managed agent project) and a SQLite database file in it; the same name resumes', async () => {
    const created = await create(alice, 'My-App');
    expect(created.statusCode, created.body).toBe(201);
    const body = created.json();
    expect(body.created).toBe(true);
    expect(body.project).toMatchObject({
      name: 'My-App',
      status: 'active',
      project_id: expect.stringMatching(/^prj_/),
      database: { engine: 'sqlite' },
    });
    expect(body.slots).toMatchObject({ used: 1, free: 2, purchased: 0, total: 2, available: 1, price: { micros: PRICE } });

    // The workspace is an agent project of the customer: the project routes answer for it.
    const projectId = body.project.project_id as string;
    const project = await context.app.inject({ method: 'GET', url: `/api/v1/projects/${projectId}`, headers: bearer(alice.systemToken) });
    expect(project.statusCode, project.body).toBe(200);
    expect(project.json().name).toBe('coder: My-App');
    const workspace = (await context.services.projects.requireOwned({ kind: 'customer', customerId: alice.customerId } as never, projectId))
      .workspaceDir;

    // The database file lives in that workspace (shown workspace-relative) and is a usable SQLite database.
    expect(body.project.database).toEqual({ engine: 'sqlite', path: 'database.sqlite', url: 'file:database.sqlite' });
    const file = path.join(workspace, body.project.database.path);
    const database = new SQLite(file);
    database.exec('create table notes (text text)');
    database.prepare('insert into notes values (?)').run('hello');
    database.close();
    const tree = await context.app.inject({
      method: 'GET',
      url: `/api/v1/projects/${projectId}/files/tree`,
      headers: bearer(alice.systemToken),
    });
    expect(tree.statusCode, tree.body).toBe(200);
    expect(tree.body).toContain('database.sqlite');

    const again = await create(alice, 'my-app');
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({ created: false, project: { name: 'My-App', project_id: projectId } });
    const listed = (await list(alice)).json();
    expect(listed.data).toHaveLength(1);
    expect(listed.data[0]).toMatchObject({
      name: 'My-App',
      project_id: projectId,
      database: { engine: 'sqlite', path: 'database.sqlite' },
    });
    expect(JSON.stringify(listed)).not.toContain(context.dataDir);
    expect(listed.slots).toMatchObject({ used: 1, total: 2, available: 1 });
  });

  it('refuses bad names with 422 and creates nothing', async () => {
    const before = (await rowsOf(alice.customerId)).length;
    const projectsBefore = (await context.services.projects.list(alice.customerId)).length;
    for (const bad of ['', ' ', 'a b', '../etc', '-dash', '.hidden', 'x'.repeat(65), '<b>x</b>', 'name;drop', 'ünï', 'a/b', 42, null]) {
      const response = await create(alice, bad);
      expect(response.statusCode, JSON.stringify(bad)).toBe(422);
      expect(response.json().detail).toBeDefined();
    }
    const extra = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects',
      headers: bearer(alice.systemToken),
      payload: { name: 'ok', extra: 1 },
    });
    expect(extra.statusCode).toBe(422);
    expect((await rowsOf(alice.customerId)).length).toBe(before);
    expect((await context.services.projects.list(alice.customerId)).length).toBe(projectsBefore);
  });

  it("another customer's project name is a 404 on DELETE and invisible in their list; the agent project too", async () => {
    const mine = (await list(alice)).json().data[0];
    expect((await remove(bob, 'My-App')).statusCode).toBe(404);
    expect((await remove(bob, 'my-app')).statusCode).toBe(404);
    expect((await list(bob)).json()).toMatchObject({ data: [], slots: { used: 0 } });
    expect(
      (await context.app.inject({ method: 'GET', url: `/api/v1/projects/${mine.project_id}`, headers: bearer(bob.systemToken) }))
        .statusCode,
    ).toBe(404);
    // Bob may use the same name: names are per customer.
    const bobs = await create(bob, 'My-App');
    expect(bobs.statusCode, bobs.body).toBe(201);
    expect(bobs.json().project.project_id).not.toBe(mine.project_id);
    expect(fs.existsSync(await databaseFileOf(mine.project_id))).toBe(true);
    expect((await list(alice)).json().data).toHaveLength(1);
  });

  it("another customer's project cannot reach a coder project's database file: not through its id, not by a path escape", async () => {
    // On SQLite the database is a file in the project's workspace; workspace confinement keeps other customers out.
    const mine = (await list(alice)).json().data[0];
    const file = await databaseFileOf(mine.project_id);
    const database = new SQLite(file);
    database.exec("create table secrets (text text); insert into secrets values ('alice-only-secret')");
    database.close();
    const before = fs.readFileSync(file);
    const bobs = (await list(bob)).json().data[0];
    const bobWorkspace = path.dirname(await databaseFileOf(bobs.project_id));
    const files = (projectId: string, query: string) => `/api/v1/projects/${projectId}/files/${query}`;
    const get = (url: string) => context.app.inject({ method: 'GET', url, headers: bearer(bob.systemToken) });
    const put = (projectId: string, filePath: string) =>
      context.app.inject({
        method: 'PUT',
        url: files(projectId, 'content'),
        headers: bearer(bob.systemToken),
        payload: { path: filePath, content: 'overwritten' },
      });

    // Alice's project id is a missing one for Bob on every file route.
    for (const url of [files(mine.project_id, 'content?path=database.sqlite'), files(mine.project_id, 'tree')]) {
      const response = await get(url);
      expect(response.statusCode, url).toBe(404);
    }
    expect((await put(mine.project_id, 'database.sqlite')).statusCode).toBe(404);

    // From Bob's own project, every way out towards Alice's file is refused.
    const relative = path.relative(bobWorkspace, file);
    expect(relative.startsWith('..')).toBe(true);
    fs.symlinkSync(file, path.join(bobWorkspace, 'alice.sqlite'));
    fs.symlinkSync(path.dirname(file), path.join(bobWorkspace, 'alice-dir'));
    // `..`, absolute and still-encoded paths are refused as written (400); symlinks out are caught on the walk (403).
    const escapes: [string, number][] = [
      [relative, 400],
      [file, 400],
      [`./${relative}`, 400],
      [encodeURIComponent(relative), 400],
      ['alice.sqlite', 403],
      ['alice-dir/database.sqlite', 403],
    ];
    for (const [escape, status] of escapes) {
      const read = await get(files(bobs.project_id, `content?path=${encodeURIComponent(escape)}`));
      expect(read.statusCode, `${escape}: ${read.body}`).toBe(status);
      expect(read.body).not.toContain('alice-only-secret');
      expect(read.body).not.toContain(Buffer.from('alice-only-secret').toString('base64'));
      const write = await put(bobs.project_id, escape);
      expect(write.statusCode, `${escape}: ${write.body}`).toBe(status);
    }
    const trees: [string, number][] = [
      [path.dirname(relative), 400],
      [path.dirname(file), 400],
      ['alice-dir', 403],
    ];
    for (const [escape, status] of trees) {
      const tree = await get(files(bobs.project_id, `tree?path=${encodeURIComponent(escape)}`));
      expect(tree.statusCode, `${escape}: ${tree.body}`).toBe(status);
      expect(tree.body).not.toContain('database.sqlite');
    }
    fs.rmSync(path.join(bobWorkspace, 'alice.sqlite'));
    fs.rmSync(path.join(bobWorkspace, 'alice-dir'));
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    const reopened = new SQLite(file, { readonly: true });
    expect(reopened.prepare('select text from secrets').pluck().all()).toEqual(['alice-only-secret']);
    reopened.close();
  });

  it('buys a slot from the token wallet once per Idempotency-Key; short credit is 402 and changes nothing', async () => {
    expect((await purchase(alice)).statusCode).toBe(422); // the key is required
    const short = await purchase(alice, 'slot-1');
    expect(short.statusCode, short.body).toBe(402);
    expect(
      await context.storage.db.selectFrom('desktop_coder_slot_purchases').selectAll().where('customer_id', '=', alice.customerId).execute(),
    ).toHaveLength(0);
    expect((await list(alice)).json().slots).toMatchObject({ purchased: 0, total: 2 });

    await credit(context, alice.customerId, PRICE + 500_000);
    const bought = await purchase(alice, 'slot-1'); // the failed attempt left the key free
    expect(bought.statusCode, bought.body).toBe(200);
    expect(bought.json()).toMatchObject({ purchase: { paid: { micros: PRICE } }, slots: { purchased: 1, total: 3 } });
    const replay = await purchase(alice, 'slot-1');
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(bought.json());
    expect((await walletOf(context, alice.customerId)).balanceMicros).toBe(500_000);

    // Concurrent duplicates of one key charge once; a new key with too little left is 402.
    await credit(context, alice.customerId, PRICE);
    const duplicates = await Promise.all([1, 2, 3].map(() => purchase(alice, 'slot-2')));
    expect(duplicates.map((response) => response.statusCode)).toEqual([200, 200, 200]);
    expect(new Set(duplicates.map((response) => response.json().purchase.id)).size).toBe(1);
    expect((await walletOf(context, alice.customerId)).balanceMicros).toBe(500_000);
    expect((await purchase(alice, 'slot-3')).statusCode).toBe(402);
    expect((await list(alice)).json().slots).toMatchObject({ purchased: 2, total: 4, max: 5 });

    // At maxSlots, buying more is refused before any charge.
    await credit(context, alice.customerId, PRICE);
    expect((await purchase(alice, 'slot-4')).statusCode).toBe(200);
    await credit(context, alice.customerId, PRICE);
    const beyond = await purchase(alice, 'slot-5');
    expect(beyond.statusCode, beyond.body).toBe(409);
    expect((await walletOf(context, alice.customerId)).balanceMicros).toBe(PRICE + 500_000);
    await expectLedgerConsistent(context);
  });

  it('enforces the slot limit under concurrent creates: exactly the free slots succeed, the rest 409', async () => {
    const carol = await newCustomer(context);
    const names = Array.from({ length: 6 }, (_, index) => `parallel-${index}`);
    const responses = await Promise.all(names.map((name) => create(carol, name)));
    const statuses = responses.map((response) => response.statusCode).sort();
    expect(statuses, responses.map((response) => response.body).join('\n')).toEqual([201, 201, 409, 409, 409, 409]);
    const refused = responses.find((response) => response.statusCode === 409)!.json();
    expect(refused).toMatchObject({ code: 'CONFLICT', slots: { used: 2, total: 2, available: 0 } });
    const rows = await rowsOf(carol.customerId);
    expect(rows).toHaveLength(2);
    expect(rows.every((row) => row.status === 'active')).toBe(true);
    expect(await context.services.projects.list(carol.customerId)).toHaveLength(2);

    // A bought slot makes room for exactly one more.
    await credit(context, carol.customerId, PRICE);
    expect((await purchase(carol, 'carol-slot')).statusCode).toBe(200);
    const more = await Promise.all(['more-a', 'more-b', 'more-c'].map((name) => create(carol, name)));
    expect(more.map((response) => response.statusCode).sort()).toEqual([201, 409, 409]);
  });

  it('DELETE removes the database file, the workspace and the agent project, and frees the slot', async () => {
    const before = (await list(alice)).json();
    const project = before.data.find((entry: { name: string }) => entry.name === 'My-App');
    const file = await databaseFileOf(project.project_id);
    const workspace = path.dirname(file);
    expect(fs.existsSync(file)).toBe(true);
    const response = await remove(alice, 'my-app');
    expect(response.statusCode, response.body).toBe(204);
    expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(workspace)).toBe(false);
    expect(
      await context.storage.db.selectFrom('projects').select('id').where('id', '=', project.project_id).executeTakeFirst(),
    ).toBeUndefined();
    expect(
      (await context.app.inject({ method: 'GET', url: `/api/v1/projects/${project.project_id}`, headers: bearer(alice.systemToken) }))
        .statusCode,
    ).toBe(404);
    const after = (await list(alice)).json();
    expect(after.data.find((entry: { name: string }) => entry.name === 'My-App')).toBeUndefined();
    expect(after.slots.used).toBe(before.slots.used - 1);
    expect((await remove(alice, 'My-App')).statusCode).toBe(404);
    expect((await remove(alice, '..%2F..')).statusCode).toBe(404);
    // Bob's project of the same name is untouched.
    expect((await list(bob)).json().data[0]).toMatchObject({ name: 'My-App', status: 'active' });
    // The name is free again: a new project, a new workspace.
    const recreated = await create(alice, 'My-App');
    expect(recreated.statusCode).toBe(201);
    expect(recreated.json().project.project_id).not.toBe(project.project_id);
  });

  it('the desktop bootstrap lists coder projects and slots', async () => {
    const boot = await context.app.inject({ method: 'GET', url: '/api/v1/desktop/bootstrap', headers: bearer(alice.systemToken) });
    expect(boot.statusCode, boot.body).toBe(200);
    const body = boot.json();
    expect(body.coder.projects.map((entry: { name: string }) => entry.name)).toEqual(['My-App']);
    expect(body.coder.slots).toMatchObject({ used: 1, free: 2, purchased: 3, total: 5 });
    expect(
      (await context.app.inject({ method: 'GET', url: '/api/v1/desktop/bootstrap', headers: bearer(bob.systemToken) })).json().coder
        .projects,
    ).toHaveLength(1);
  });
});

describe('desktop coder projects: a database server that cannot be reached', () => {
  let context: TestContext;

  beforeAll(async () => {
    // Port 9 (discard) refuses connections: the workspace is made, then the database fails.
    context = await billingContext({ config: { desktop: { coder: { databaseAdminUrl: 'postgres://postgres@127.0.0.1:9/none' } } } });
  });
  afterAll(async () => context.close());

  it('answers 503 with Retry-After and leaves nothing behind: no row, no agent project, no workspace, the slot free', async () => {
    const customer = await newCustomer(context);
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects',
      headers: bearer(customer.systemToken),
      payload: { name: 'doomed' },
    });
    expect(response.statusCode, response.body).toBe(503);
    expect(response.headers['retry-after']).toBe('5');
    expect(response.body).not.toContain('127.0.0.1');
    expect(
      await context.storage.db.selectFrom('desktop_coder_projects').selectAll().where('customer_id', '=', customer.customerId).execute(),
    ).toEqual([]);
    expect(await context.services.projects.list(customer.customerId)).toEqual([]);
    const workspaces = path.join(context.dataDir, 'workspaces', String(customer.customerId));
    expect(fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []).toEqual([]);
    const listed = await context.app.inject({
      method: 'GET',
      url: '/api/v1/desktop/coder/projects',
      headers: bearer(customer.systemToken),
    });
    expect(listed.json().slots).toMatchObject({ used: 0, available: 2 });
  });
});

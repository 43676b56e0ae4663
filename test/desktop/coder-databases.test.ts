/**
 * Managed PostgreSQL databases of coder projects, on a real server: the database is created with its own LOGIN
 * role, used with its own credentials, refused to another project's role, and dropped with its role on DELETE
 * (open sessions ended first). With TEST_DATABASE_URL the service runs on PostgreSQL and the engine follows it
 * (DATABASE_URL); without it the service runs on SQLite and `desktop.coder.databaseAdminUrl` points at the local
 * server. Databases and roles carry a prefix unique to this run and are dropped at the end whatever happened.
 */
import fs from 'node:fs';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/kernel/ids.js';
import { bearer, type TestContext } from '../helpers/context.js';
import { TEST_DATABASE_URL } from '../helpers/databases.js';
import { billingContext, newCustomer, type TestCustomer } from '../billing/helpers.js';

const LOCAL_URL = 'postgres://postgres@127.0.0.1:5432/test';

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

const adminUrl = TEST_DATABASE_URL ?? ((await reachable(LOCAL_URL)) ? LOCAL_URL : undefined);
const prefix = `t_coder_${randomBase62(10).toLowerCase()}`;

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

async function connect(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  client.on('error', () => undefined); // a session ended by the server reports here
  await client.connect();
  return client;
}

/** The database URL of `database` for another role (trust or password auth alike: privileges decide). */
function asRole(database: { host: string; port: number; database: string }, role: { user: string; password: string }): string {
  return `postgresql://${role.user}:${encodeURIComponent(role.password)}@${database.host}:${database.port}/${database.database}`;
}

describe.skipIf(adminUrl === undefined)('desktop coder projects: managed PostgreSQL databases', () => {
  let context: TestContext;
  let alice: TestCustomer;
  let bob: TestCustomer;

  beforeAll(async () => {
    context = await billingContext({
      env: TEST_DATABASE_URL ? { DATABASE_URL: TEST_DATABASE_URL } : {},
      config: {
        desktop: { coder: { freeSlots: 3, databaseNamePrefix: prefix, ...(TEST_DATABASE_URL ? {} : { databaseAdminUrl: adminUrl }) } },
      },
    });
    alice = await newCustomer(context);
    bob = await newCustomer(context);
  });
  afterAll(async () => {
    await admin(async (client) => {
      const databases = await client.query<{ datname: string }>('select datname from pg_database where datname like $1', [`${prefix}_%`]);
      for (const { datname } of databases.rows) await client.query(`drop database if exists "${datname}" with (force)`);
      const roles = await client.query<{ rolname: string }>('select rolname from pg_roles where rolname like $1', [`${prefix}_%`]);
      for (const { rolname } of roles.rows) await client.query(`drop role if exists "${rolname}"`);
    });
    await context?.close();
  });

  const create = async (who: TestCustomer, name: string) => {
    const response = await context.app.inject({
      method: 'POST',
      url: '/api/v1/desktop/coder/projects',
      headers: bearer(who.systemToken),
      payload: { name },
    });
    expect(response.statusCode, response.body).toBe(201);
    return response.json().project;
  };
  const remove = (who: TestCustomer, name: string) =>
    context.app.inject({ method: 'DELETE', url: `/api/v1/desktop/coder/projects/${name}`, headers: bearer(who.systemToken) });
  const exists = (kind: 'database' | 'role', name: string) =>
    admin(
      async (client) =>
        ((
          await client.query(
            kind === 'database' ? 'select 1 from pg_database where datname = $1' : 'select 1 from pg_roles where rolname = $1',
            [name],
          )
        ).rowCount ?? 0) > 0,
    );

  let alpha: {
    project_id: string;
    database: { host: string; port: number; database: string; user: string; password: string; url: string };
  };
  let beta: typeof alpha;

  it('creates a database owned by a LOGIN role of its own; the owner connects with its credentials and builds tables', async () => {
    alpha = await create(alice, 'alpha');
    beta = await create(bob, 'beta');
    const database = alpha.database;
    expect(database).toMatchObject({
      engine: 'postgres',
      port: expect.any(Number),
      database: expect.stringMatching(new RegExp(`^${prefix}_${alice.customerId}_[a-z0-9]{12}$`)),
    });
    expect(database.user).toBe(database.database);
    expect(database.password.length).toBeGreaterThanOrEqual(32);
    expect(beta.database.password).not.toBe(database.password);

    const client = await connect(database.url);
    try {
      const who = await client.query('select current_user as role, current_database() as db');
      expect(who.rows[0]).toEqual({ role: database.user, db: database.database });
      await client.query('create table todos (id serial primary key, title text not null)');
      await client.query("insert into todos (title) values ('ship it')");
      expect((await client.query('select title from todos')).rows).toEqual([{ title: 'ship it' }]);
    } finally {
      await client.end();
    }

    await admin(async (client) => {
      const role = await client.query(
        'select rolcanlogin, rolsuper, rolcreatedb, rolcreaterole, rolpassword from pg_authid where rolname = $1',
        [database.user],
      );
      expect(role.rows[0]).toMatchObject({
        rolcanlogin: true,
        rolsuper: false,
        rolcreatedb: false,
        rolcreaterole: false,
        rolpassword: expect.stringMatching(/^SCRAM-SHA-256\$/),
      });
      const owner = await client.query('select pg_get_userbyid(datdba) as owner from pg_database where datname = $1', [database.database]);
      expect(owner.rows[0].owner).toBe(database.user);
      // Nobody but the owner holds CONNECT: not PUBLIC, not the other project's role.
      const privileges = await client.query(
        "select has_database_privilege($1, $2, 'CONNECT') as beta, has_database_privilege($3, $2, 'CONNECT') as alpha",
        [beta.database.user, database.database, database.user],
      );
      expect(privileges.rows[0]).toEqual({ beta: false, alpha: true });
    });

    // The password is stored sealed, and the owner reads the same details again from the list.
    const row = await context.storage.db
      .selectFrom('desktop_coder_projects')
      .selectAll()
      .where('db_name', '=', database.database)
      .executeTakeFirstOrThrow();
    expect(row.db_password_sealed).not.toContain(database.password);
    const listed = (
      await context.app.inject({ method: 'GET', url: '/api/v1/desktop/coder/projects', headers: bearer(alice.systemToken) })
    ).json();
    expect(listed.data[0].database).toEqual(alpha.database);
    const bobs = (
      await context.app.inject({ method: 'GET', url: '/api/v1/desktop/coder/projects', headers: bearer(bob.systemToken) })
    ).json();
    expect(JSON.stringify(bobs)).not.toContain(database.password);
  });

  it("refuses another project's role on the database", async () => {
    await expect(connect(asRole(alpha.database, beta.database))).rejects.toThrow(/permission denied for database/);
    await expect(connect(asRole(beta.database, alpha.database))).rejects.toThrow(/permission denied for database/);
  });

  it("another customer's DELETE is a 404 and drops nothing", async () => {
    expect((await remove(bob, 'alpha')).statusCode).toBe(404);
    expect(await exists('database', alpha.database.database)).toBe(true);
    expect(await exists('role', alpha.database.user)).toBe(true);
  });

  it('DELETE ends open sessions, drops the database and its role, and removes the workspace', async () => {
    const workspace = await context.storage.db
      .selectFrom('projects')
      .select('workspace_dir')
      .where('id', '=', alpha.project_id)
      .executeTakeFirstOrThrow();
    expect(fs.existsSync(workspace.workspace_dir)).toBe(true);
    const open = await connect(alpha.database.url);
    const response = await remove(alice, 'alpha');
    expect(response.statusCode, response.body).toBe(204);
    await expect(open.query('select 1')).rejects.toThrow();
    await open.end().catch(() => undefined);
    expect(await exists('database', alpha.database.database)).toBe(false);
    expect(await exists('role', alpha.database.user)).toBe(false);
    expect(fs.existsSync(workspace.workspace_dir)).toBe(false);
    await expect(connect(alpha.database.url)).rejects.toThrow();
    // Bob's project is untouched and still usable by its owner.
    const client = await connect(beta.database.url);
    expect((await client.query('select current_database() as db')).rows[0].db).toBe(beta.database.database);
    await client.end();
    expect((await remove(bob, 'beta')).statusCode).toBe(204);
    expect(await exists('database', beta.database.database)).toBe(false);
    expect(await exists('role', beta.database.user)).toBe(false);
  }, 90_000);

  it('concurrent creates make exactly the free slots worth of databases, each usable by its own role only', async () => {
    const carol = await newCustomer(context);
    const responses = await Promise.all(
      ['one', 'two', 'three', 'four', 'five'].map((name) =>
        context.app.inject({
          method: 'POST',
          url: '/api/v1/desktop/coder/projects',
          headers: bearer(carol.systemToken),
          payload: { name },
        }),
      ),
    );
    expect(responses.map((response) => response.statusCode).sort(), responses.map((response) => response.body).join('\n')).toEqual([
      201, 201, 201, 409, 409,
    ]);
    const made = responses.filter((response) => response.statusCode === 201).map((response) => response.json().project);
    const databases = await admin(async (client) =>
      (
        await client.query<{ datname: string }>('select datname from pg_database where datname like $1 order by 1', [
          `${prefix}_${carol.customerId}_%`,
        ])
      ).rows.map((row) => row.datname),
    );
    expect(databases).toEqual(made.map((project) => project.database.database).sort());
    for (const project of made) {
      const client = await connect(project.database.url);
      await client.query('create table t (x int)');
      await client.end();
    }
    await expect(connect(asRole(made[0].database, made[1].database))).rejects.toThrow(/permission denied for database/);
    for (const project of made) expect((await remove(carol, project.name)).statusCode).toBe(204);
    expect(
      await admin(
        async (client) =>
          (await client.query('select 1 from pg_roles where rolname like $1', [`${prefix}_${carol.customerId}_%`])).rowCount,
      ),
    ).toBe(0);
  }, 60_000);
});

import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, createTestContext, operatorHeaders, STATIC_TOKEN, type TestContext } from '../helpers/context.js';
import { dialects, openTestStorage } from '../helpers/databases.js';
import { createUserKey, issueManagedKey, signUp } from './support.js';
import { solvedHumanCheck } from '../helpers/human-check.js';

/** Every text cell of every table in the test database (the test's own schema on PostgreSQL). */
async function everyTextCell(context: TestContext): Promise<{ table: string; column: string; value: string }[]> {
  const { db } = context.storage;
  const schema = context.storage.location.postgresSchema;
  const tables = schema
    ? (await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = ${schema}`.execute(db))
        .rows
    : (await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(db)).rows;
  expect(tables.map((table) => table.name)).toEqual(expect.arrayContaining(['customers', 'api_keys']));
  const cells: { table: string; column: string; value: string }[] = [];
  for (const { name } of tables) {
    const rows = (await sql<Record<string, unknown>>`select * from ${sql.table(schema ? `${schema}.${name}` : name)}`.execute(db)).rows;
    for (const row of rows) {
      for (const [column, value] of Object.entries(row)) {
        if (typeof value === 'string') cells.push({ table: name, column, value });
        else if (Buffer.isBuffer(value)) cells.push({ table: name, column, value: value.toString('utf8') });
      }
    }
  }
  return cells;
}

describe.each(dialects)('no secret at rest or in logs (%s)', (dialect) => {
  let context: TestContext;
  const secrets: string[] = [];

  beforeAll(async () => {
    context = await createTestContext({ storage: await openTestStorage(dialect) });
    const customer = await signUp(context, 'secretive');
    secrets.push(customer.password, customer.systemToken, customer.usernameToken);
    const userKey = await createUserKey(context, customer, { name: 'tool' });
    secrets.push(userKey.key);
    const replaced = await context.app.inject({
      method: 'POST',
      url: `/api/v1/me/api-keys/${userKey.id}/replace`,
      headers: bearer(customer.systemToken),
    });
    secrets.push(replaced.json().key);
    const login = await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: customer.email, password: customer.password },
    });
    secrets.push(login.json().api_key);
    const rotated = await context.app.inject({ method: 'POST', url: '/api/v1/me/api-token/rotate', headers: bearer(customer.systemToken) });
    secrets.push(rotated.json().username_token);
    const operatorKey = await issueManagedKey(context, { role: 'operator' });
    const customerKey = await issueManagedKey(context, { customer_id: customer.customerId });
    secrets.push(operatorKey.key, customerKey.key);
    const adminCustomer = await context.app.inject({
      method: 'POST',
      url: '/api/admin/customers',
      headers: operatorHeaders,
      payload: { email: `made.${dialect}@example.test`, password: 'operator-chosen-password' },
    });
    secrets.push('operator-chosen-password', adminCustomer.json().api_key, adminCustomer.json().username_token);
    // Use every key once, and fail a few logins, so that request and error paths write their logs too.
    for (const key of secrets.slice(1)) await context.app.inject({ method: 'GET', url: '/api/v1/me', headers: bearer(key) });
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/auth/login',
      payload: { email: customer.email, password: `${customer.password}x` },
    });
    await context.app.inject({
      method: 'POST',
      url: '/api/v1/customer/register',
      payload: { email: customer.email, password: customer.password, humanCheck: await solvedHumanCheck(context) },
    });
    secrets.push(STATIC_TOKEN);
    expect(secrets.every((secret) => typeof secret === 'string' && secret.length >= 16)).toBe(true);
  });
  afterAll(async () => context.close());

  it('stores no plaintext key or password in any table', async () => {
    const cells = await everyTextCell(context);
    expect(cells.some((cell) => cell.table === 'api_keys' && cell.column === 'key_hash')).toBe(true);
    for (const secret of secrets) {
      const leaks = cells.filter((cell) => cell.value.includes(secret));
      expect(leaks, `secret ${secret.slice(0, 6)}…`).toEqual([]);
    }
    const hashes = cells.filter((cell) => cell.table === 'customers' && cell.column === 'password_hash');
    expect(hashes.length).toBeGreaterThan(0);
    for (const hash of hashes) expect(hash.value).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('writes no plaintext key or password to the logs', async () => {
    context.services.logger.info({ headers: { authorization: `Bearer ${secrets[1]}` } }, 'headers as a careless caller might log them');
    const logs = context.logs.join('');
    expect(logs).toContain('request completed');
    expect(logs).toContain('[redacted]');
    for (const secret of secrets) expect(logs.includes(secret), `secret ${secret.slice(0, 6)}…`).toBe(false);
  });
});

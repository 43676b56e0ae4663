import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBase62 } from '../../src/kernel/ids.js';
import { migrateToLatest } from '../../src/storage/migrate.js';
import { openTestStorage, TEST_DATABASE_URL, type TestStorage } from '../helpers/databases.js';

describe.runIf(TEST_DATABASE_URL)('PostgreSQL databases sharing one server', () => {
  let storage: TestStorage;
  let admin: pg.Client;

  beforeAll(async () => {
    storage = await openTestStorage('postgres');
    admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
  });
  afterAll(async () => {
    await admin.end();
    await storage.destroy();
  });

  it("introspects only the connection's own schema", async () => {
    const other = `t_other_${randomBase62(8).toLowerCase()}`;
    await admin.query(`create schema ${other}; create table ${other}.foreign_table (id int); create table ${other}.customers (id int)`);
    try {
      const tables = await storage.db.introspection.getTables();
      expect(tables.map((table) => table.schema)).toEqual(tables.map(() => storage.location.postgresSchema));
      expect(tables.map((table) => table.name)).toContain('customers');
      expect(tables.map((table) => table.name)).not.toContain('foreign_table');
      expect(tables.map((table) => table.name)).not.toContain('kysely_migration');
      const withInternal = await storage.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(withInternal.map((table) => table.name)).toContain('kysely_migration');
    } finally {
      await admin.query(`drop schema ${other} cascade`);
    }
  });

  it('migrates while other schemas are created and dropped', async () => {
    const churn = (async () => {
      for (let round = 0; round < 20; round++) {
        const name = `t_churn_${randomBase62(8).toLowerCase()}`;
        await admin.query(`create schema ${name}; create table ${name}.t (id int)`);
        await admin.query(`drop schema ${name} cascade`);
      }
    })();
    const migrations = (async () => {
      for (let round = 0; round < 20; round++) expect(await migrateToLatest(storage.db)).toEqual([]);
    })();
    await Promise.all([churn, migrations]);
  });
});

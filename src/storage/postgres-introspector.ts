/* eslint-disable @typescript-eslint/no-explicit-any -- Kysely<any> is Kysely's type for a database whose tables are not described here (migrations run before any schema type holds). */
/**
 * PostgreSQL introspection limited to the connection's current schema. Kysely's own introspector reads every
 * schema of the server and calls `has_schema_privilege` by name, which fails with "schema does not exist" when
 * another database on the same server (a test schema, a tenant) is dropped during the query; the migrator
 * introspects on every start, so that race would fail migrations. Only catalog ids are used here.
 */
import {
  DEFAULT_MIGRATION_LOCK_TABLE,
  DEFAULT_MIGRATION_TABLE,
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type DatabaseMetadataOptions,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

interface ColumnRow {
  schema: string;
  table: string;
  kind: string;
  column: string;
  type: string;
  not_null: boolean;
  has_default: boolean;
  auto_increment: boolean;
}

export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<any>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const result = await sql<SchemaMetadata>`select current_schema() as name`.execute(this.db);
    return result.rows;
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const result = await sql<ColumnRow>`
      select n.nspname as schema, c.relname as table, c.relkind as kind, a.attname as column,
             format_type(a.atttypid, a.atttypmod) as type, a.attnotnull as not_null, a.atthasdef as has_default,
             exists (
               select 1 from pg_catalog.pg_attrdef d
               where d.adrelid = c.oid and d.adnum = a.attnum and pg_get_expr(d.adbin, d.adrelid) like 'nextval(%'
             ) as auto_increment
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      join pg_catalog.pg_attribute a on a.attrelid = c.oid
      where n.nspname = current_schema() and c.relkind in ('r', 'v', 'p') and a.attnum > 0 and not a.attisdropped
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of result.rows) {
      const internal = row.table === DEFAULT_MIGRATION_TABLE || row.table === DEFAULT_MIGRATION_LOCK_TABLE;
      if (internal && !options.withInternalKyselyTables) continue;
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        isNullable: !row.not_null,
        hasDefaultValue: row.has_default,
        isAutoIncrementing: row.auto_increment,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<DatabaseMetadata> {
    return { tables: await this.getTables(options) };
  }
}

export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<any>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}

import type { Kysely } from 'kysely';

/**
 * Prompt-cache writes have prices of their own (Anthropic bills a 5-minute write at 1.25x input, a 1-hour write at
 * 2x): each billed call records the write rates its hold used and the write tokens it settled with. Calls billed
 * before this migration have none (they were billed at the input rate).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  for (const column of [
    'cache_write_micros_per_million',
    'cache_write_1h_micros_per_million',
    'cache_write_tokens',
    'cache_write_1h_tokens',
  ]) {
    await db.schema.alterTable('billing_calls').addColumn(column, 'bigint').execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const column of [
    'cache_write_micros_per_million',
    'cache_write_1h_micros_per_million',
    'cache_write_tokens',
    'cache_write_1h_tokens',
  ]) {
    await db.schema.alterTable('billing_calls').dropColumn(column).execute();
  }
}

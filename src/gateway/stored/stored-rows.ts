/** Row helpers shared by the stored-object repositories: the items and metadata that belong to an object. */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.js';

export type Executor = Kysely<Database> | Transaction<Database>;

export interface StoredItem {
  itemId: string;
  item: Record<string, unknown>;
}

export const parseObject = (json: string): Record<string, unknown> => JSON.parse(json) as Record<string, unknown>;

export async function insertItems(trx: Executor, objectId: string, items: StoredItem[]): Promise<void> {
  if (items.length === 0) return;
  await trx
    .insertInto('gateway_stored_items')
    .values(
      items.map((entry, position) => ({ object_id: objectId, position, item_id: entry.itemId, item_json: JSON.stringify(entry.item) })),
    )
    .execute();
}

export async function replaceMetadata(trx: Executor, objectId: string, metadata: Record<string, string>): Promise<void> {
  await trx.deleteFrom('gateway_stored_metadata').where('object_id', '=', objectId).execute();
  const pairs = Object.entries(metadata);
  if (pairs.length === 0) return;
  await trx
    .insertInto('gateway_stored_metadata')
    .values(pairs.map(([key, value]) => ({ object_id: objectId, key, value })))
    .execute();
}

export async function deleteChildren(trx: Executor, objectIds: string[]): Promise<void> {
  await trx.deleteFrom('gateway_stored_items').where('object_id', 'in', objectIds).execute();
  await trx.deleteFrom('gateway_stored_metadata').where('object_id', 'in', objectIds).execute();
}

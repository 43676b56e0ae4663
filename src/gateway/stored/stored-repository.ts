/**
 * Persistence of stored chat completions, responses and their items. Every read is scoped to an owner (the
 * bearer's key) and ignores expired rows, so retention holds exactly even between two purge runs; another
 * owner's id behaves exactly like an id that does not exist.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../../storage/schema.js';

type Executor = Kysely<Database> | Transaction<Database>;

export type SortOrder = 'asc' | 'desc';

export interface StoredItem {
  itemId: string;
  item: Record<string, unknown>;
}

export interface PageRequest {
  limit: number;
  /** Id of the last object (or item) the client has seen. */
  after?: string;
  order: SortOrder;
}

export interface Page<T> {
  data: T[];
  hasMore: boolean;
}

export interface NewStoredCompletion {
  completionId: string;
  owner: string;
  model: string;
  completion: Record<string, unknown>;
  metadata: Record<string, string>;
  messages: StoredItem[];
  createdAtMs: number;
  expiresAtMs: number;
}

export interface StoredCompletion {
  completionId: string;
  model: string;
  completion: Record<string, unknown>;
  metadata: Record<string, string>;
  createdAtMs: number;
}

export interface CompletionFilter extends PageRequest {
  model?: string;
  metadata?: Record<string, string>;
}

export interface NewStoredResponse {
  responseId: string;
  owner: string;
  model: string;
  status: string;
  background: boolean;
  response: Record<string, unknown>;
  request: Record<string, unknown>;
  inputItems: StoredItem[];
  createdAtMs: number;
  expiresAtMs: number;
}

export interface StoredResponse {
  responseId: string;
  owner: string;
  model: string;
  status: string;
  background: boolean;
  response: Record<string, unknown>;
  request: Record<string, unknown>;
  createdAtMs: number;
  /** Last state change or heartbeat of the run. */
  updatedAtMs: number;
}

/** Thrown when a paging cursor names no object visible to the caller. */
export class UnknownCursorError extends Error {
  constructor(readonly cursor: string) {
    super(`cursor ${cursor} not found`);
  }
}

const parseObject = (json: string): Record<string, unknown> => JSON.parse(json) as Record<string, unknown>;

export class StoredObjectRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insertCompletion(completion: NewStoredCompletion): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gateway_stored_completions')
        .values({
          completion_id: completion.completionId,
          owner: completion.owner,
          model: completion.model,
          completion_json: JSON.stringify(completion.completion),
          metadata_json: JSON.stringify(completion.metadata),
          created_at: completion.createdAtMs,
          expires_at: completion.expiresAtMs,
        })
        .execute();
      await insertItems(trx, completion.completionId, completion.messages);
      await replaceMetadata(trx, completion.completionId, completion.metadata);
    });
  }

  async findCompletion(owner: string, completionId: string, nowMs: number): Promise<StoredCompletion | undefined> {
    const row = await this.db
      .selectFrom('gateway_stored_completions')
      .select(['completion_id', 'model', 'completion_json', 'metadata_json', 'created_at'])
      .where('completion_id', '=', completionId)
      .where('owner', '=', owner)
      .where('expires_at', '>', nowMs)
      .executeTakeFirst();
    return row && toCompletion(row);
  }

  async listCompletions(owner: string, filter: CompletionFilter, nowMs: number): Promise<Page<StoredCompletion>> {
    let query = this.db
      .selectFrom('gateway_stored_completions as completion')
      .select(['completion.completion_id', 'completion.model', 'completion.completion_json', 'completion.metadata_json', 'completion.created_at'])
      .where('completion.owner', '=', owner)
      .where('completion.expires_at', '>', nowMs);
    if (filter.model !== undefined) query = query.where('completion.model', '=', filter.model);
    for (const [key, value] of Object.entries(filter.metadata ?? {})) {
      query = query.where(({ exists, selectFrom }) =>
        exists(
          selectFrom('gateway_stored_metadata as pair')
            .select('pair.id')
            .whereRef('pair.object_id', '=', 'completion.completion_id')
            .where('pair.key', '=', key)
            .where('pair.value', '=', value),
        ),
      );
    }
    if (filter.after !== undefined) {
      const cursor = await this.db
        .selectFrom('gateway_stored_completions')
        .select('id')
        .where('completion_id', '=', filter.after)
        .where('owner', '=', owner)
        .executeTakeFirst();
      if (!cursor) throw new UnknownCursorError(filter.after);
      query = query.where('completion.id', filter.order === 'asc' ? '>' : '<', cursor.id);
    }
    const rows = await query.orderBy('completion.id', filter.order).limit(filter.limit + 1).execute();
    return { data: rows.slice(0, filter.limit).map(toCompletion), hasMore: rows.length > filter.limit };
  }

  /** Replaces the metadata of a visible completion; returns the updated completion or undefined. */
  async updateCompletionMetadata(
    owner: string,
    completionId: string,
    metadata: Record<string, string>,
    nowMs: number,
  ): Promise<StoredCompletion | undefined> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('gateway_stored_completions')
        .set({ metadata_json: JSON.stringify(metadata) })
        .where('completion_id', '=', completionId)
        .where('owner', '=', owner)
        .where('expires_at', '>', nowMs)
        .returning(['completion_id', 'model', 'completion_json', 'metadata_json', 'created_at'])
        .executeTakeFirst();
      if (!updated) return undefined;
      await replaceMetadata(trx, completionId, metadata);
      return toCompletion(updated);
    });
  }

  async deleteCompletion(owner: string, completionId: string, nowMs: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('gateway_stored_completions')
        .where('completion_id', '=', completionId)
        .where('owner', '=', owner)
        .where('expires_at', '>', nowMs)
        .executeTakeFirst();
      if (deleted.numDeletedRows === 0n) return false;
      await deleteChildren(trx, [completionId]);
      return true;
    });
  }

  /** Items of an object the caller already proved to own. */
  async listItems(objectId: string, page: PageRequest): Promise<Page<StoredItem>> {
    let query = this.db
      .selectFrom('gateway_stored_items')
      .select(['item_id', 'item_json'])
      .where('object_id', '=', objectId);
    if (page.after !== undefined) {
      const cursor = await this.db
        .selectFrom('gateway_stored_items')
        .select('position')
        .where('object_id', '=', objectId)
        .where('item_id', '=', page.after)
        .executeTakeFirst();
      if (!cursor) throw new UnknownCursorError(page.after);
      query = query.where('position', page.order === 'asc' ? '>' : '<', cursor.position);
    }
    const rows = await query.orderBy('position', page.order).limit(page.limit + 1).execute();
    return {
      data: rows.slice(0, page.limit).map((row) => ({ itemId: row.item_id, item: parseObject(row.item_json) })),
      hasMore: rows.length > page.limit,
    };
  }

  async insertResponse(response: NewStoredResponse): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('gateway_stored_responses')
        .values({
          response_id: response.responseId,
          owner: response.owner,
          model: response.model,
          status: response.status,
          background: response.background ? 1 : 0,
          response_json: JSON.stringify(response.response),
          request_json: JSON.stringify(response.request),
          created_at: response.createdAtMs,
          updated_at: response.createdAtMs,
          expires_at: response.expiresAtMs,
        })
        .execute();
      await insertItems(trx, response.responseId, response.inputItems);
    });
  }

  async findResponse(owner: string, responseId: string, nowMs: number): Promise<StoredResponse | undefined> {
    const row = await this.db
      .selectFrom('gateway_stored_responses')
      .selectAll()
      .where('response_id', '=', responseId)
      .where('owner', '=', owner)
      .where('expires_at', '>', nowMs)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      responseId: row.response_id,
      owner: row.owner,
      model: row.model,
      status: row.status,
      background: row.background === 1,
      response: parseObject(row.response_json),
      request: parseObject(row.request_json),
      createdAtMs: row.created_at,
      updatedAtMs: row.updated_at,
    };
  }

  /**
   * The heartbeat of a running background response: marks it alive and returns its state (regardless of owner),
   * so the run notices a cancel made on another node.
   */
  async heartbeatResponse(responseId: string, nowMs: number): Promise<string | undefined> {
    await this.db
      .updateTable('gateway_stored_responses')
      .set({ updated_at: nowMs })
      .where('response_id', '=', responseId)
      .where('status', 'in', ['queued', 'in_progress'])
      .execute();
    const row = await this.db.selectFrom('gateway_stored_responses').select('status').where('response_id', '=', responseId).executeTakeFirst();
    return row?.status;
  }

  /**
   * Moves a response to a new state only while it is in one of `fromStatuses`; returns whether it moved. The
   * guard makes cancel and completion race safely: whichever writes first wins, the other changes nothing.
   */
  async transitionResponse(options: {
    responseId: string;
    fromStatuses: string[];
    status: string;
    response: Record<string, unknown>;
    nowMs: number;
    expiresAtMs?: number;
  }): Promise<boolean> {
    const result = await this.db
      .updateTable('gateway_stored_responses')
      .set({
        status: options.status,
        response_json: JSON.stringify(options.response),
        updated_at: options.nowMs,
        ...(options.expiresAtMs === undefined ? {} : { expires_at: options.expiresAtMs }),
      })
      .where('response_id', '=', options.responseId)
      .where('status', 'in', options.fromStatuses)
      .executeTakeFirst();
    return result.numUpdatedRows > 0n;
  }

  async deleteResponse(owner: string, responseId: string, nowMs: number): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const deleted = await trx
        .deleteFrom('gateway_stored_responses')
        .where('response_id', '=', responseId)
        .where('owner', '=', owner)
        .where('expires_at', '>', nowMs)
        .executeTakeFirst();
      if (deleted.numDeletedRows === 0n) return false;
      await deleteChildren(trx, [responseId]);
      return true;
    });
  }

  /** Deletes up to `batchSize` expired objects of each kind with their items; returns how many objects went. */
  async purgeExpired(nowMs: number, batchSize = 500): Promise<number> {
    const completionIds = (
      await this.db.selectFrom('gateway_stored_completions').select('completion_id').where('expires_at', '<=', nowMs).limit(batchSize).execute()
    ).map((row) => row.completion_id);
    const responseIds = (
      await this.db.selectFrom('gateway_stored_responses').select('response_id').where('expires_at', '<=', nowMs).limit(batchSize).execute()
    ).map((row) => row.response_id);
    if (completionIds.length + responseIds.length === 0) return 0;
    await this.db.transaction().execute(async (trx) => {
      if (completionIds.length > 0) {
        await trx.deleteFrom('gateway_stored_completions').where('completion_id', 'in', completionIds).execute();
        await deleteChildren(trx, completionIds);
      }
      if (responseIds.length > 0) {
        await trx.deleteFrom('gateway_stored_responses').where('response_id', 'in', responseIds).execute();
        await deleteChildren(trx, responseIds);
      }
    });
    return completionIds.length + responseIds.length;
  }
}

async function insertItems(trx: Executor, objectId: string, items: StoredItem[]): Promise<void> {
  if (items.length === 0) return;
  await trx
    .insertInto('gateway_stored_items')
    .values(items.map((entry, position) => ({ object_id: objectId, position, item_id: entry.itemId, item_json: JSON.stringify(entry.item) })))
    .execute();
}

async function replaceMetadata(trx: Executor, objectId: string, metadata: Record<string, string>): Promise<void> {
  await trx.deleteFrom('gateway_stored_metadata').where('object_id', '=', objectId).execute();
  const pairs = Object.entries(metadata);
  if (pairs.length === 0) return;
  await trx
    .insertInto('gateway_stored_metadata')
    .values(pairs.map(([key, value]) => ({ object_id: objectId, key, value })))
    .execute();
}

async function deleteChildren(trx: Executor, objectIds: string[]): Promise<void> {
  await trx.deleteFrom('gateway_stored_items').where('object_id', 'in', objectIds).execute();
  await trx.deleteFrom('gateway_stored_metadata').where('object_id', 'in', objectIds).execute();
}

function toCompletion(row: { completion_id: string; model: string; completion_json: string; metadata_json: string; created_at: number }): StoredCompletion {
  return {
    completionId: row.completion_id,
    model: row.model,
    completion: parseObject(row.completion_json),
    metadata: JSON.parse(row.metadata_json) as Record<string, string>,
    createdAtMs: row.created_at,
  };
}

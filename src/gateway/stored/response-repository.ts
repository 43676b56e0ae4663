/**
 * Persistence of stored responses. Reads are scoped to an owner and ignore expired rows; state changes are
 * guarded updates so concurrent writers (a finishing run, a cancel, a sweep) never overwrite each other.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../storage/schema.js';
import { deleteChildren, insertItems, parseObject, type StoredItem } from './stored-rows.js';

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

/** A response as first written: its `updatedAtMs` is its creation time. */
export interface NewStoredResponse extends Omit<StoredResponse, 'updatedAtMs'> {
  inputItems: StoredItem[];
  expiresAtMs: number;
}

export class ResponseRepository {
  constructor(private readonly db: Kysely<Database>) {}

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
    const row = await this.db
      .selectFrom('gateway_stored_responses')
      .select('status')
      .where('response_id', '=', responseId)
      .executeTakeFirst();
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
}

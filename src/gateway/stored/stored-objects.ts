/**
 * Stored chat completions and responses, per bearer. The chat and Responses protocols hand finished objects to
 * `saveChatCompletion` / `saveResponse`; the lifecycle routes read, page, update and delete them. Objects expire
 * after the configured retention and a background loop purges them.
 */
import type { Logger } from 'pino';
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, notFound } from '../../kernel/errors.js';
import type { ChatCompletionRecord, ResponseRecord, StoredObjects } from '../normalized/index.js';
import { parseMetadata } from './metadata.js';
import { chatStoreMessages, responseInputItems } from './stored-items.js';
import {
  UnknownCursorError,
  type StoredObjectRepository,
  type CompletionFilter,
  type Page,
  type PageRequest,
  type StoredCompletion,
  type StoredItem,
} from './stored-repository.js';
import type { ResponseRepository, StoredResponse } from './response-repository.js';
import { type JsonObject } from '../../kernel/json.js';

/** Background responses created with `store: false` stay pollable this long (OpenAI keeps them ~10 minutes). */
export const UNSTORED_BACKGROUND_RETENTION_MS = 10 * 60 * 1000;
const PURGE_INTERVAL_MS = 60_000;

/** Whose objects these are: the bearer's key, or the static operator token as a scope of its own. */
export function ownerScope(principal: Principal): string {
  return principal.keyId === null ? 'operator:static' : `key:${principal.keyId}`;
}

export interface CursorList<T> {
  object: 'list';
  data: T[];
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

export function cursorList<T extends { id?: unknown }>(page: Page<T>): CursorList<T> {
  return {
    object: 'list',
    data: page.data,
    first_id: (page.data[0]?.id as string | undefined) ?? null,
    last_id: (page.data[page.data.length - 1]?.id as string | undefined) ?? null,
    has_more: page.hasMore,
  };
}

export interface StoredObjectsOptions {
  objects: StoredObjectRepository;
  responses: ResponseRepository;
  clock: Clock;
  logger: Logger;
  retentionMs: number;
}

export class StoredObjectsService implements StoredObjects {
  private readonly repository: StoredObjectRepository;
  /** Response rows; the responses lifecycle moves their state (background runs, cancel). */
  readonly responseRows: ResponseRepository;
  private purgeTimer: NodeJS.Timeout | undefined;
  /** The purge in progress, if any: a slow purge is never overlapped by the next tick. */
  private purgeRunning: Promise<unknown> | undefined;

  constructor(private readonly options: StoredObjectsOptions) {
    this.repository = options.objects;
    this.responseRows = options.responses;
  }

  private nowMs(): number {
    return this.options.clock.nowMs();
  }

  expiryFor(createdAtMs: number, stored: boolean): number {
    return createdAtMs + (stored ? this.options.retentionMs : Math.min(this.options.retentionMs, UNSTORED_BACKGROUND_RETENTION_MS));
  }

  /** Keeps a chat completion when the request asked for `store: true`, as OpenAI does. */
  async saveChatCompletion(record: ChatCompletionRecord): Promise<void> {
    if (!record.store) return;
    const completionId = String(record.completion.id);
    const createdAtMs = this.nowMs();
    await this.repository.insertCompletion({
      completionId,
      owner: ownerScope(record.principal),
      model: String(record.completion.model ?? ''),
      completion: record.completion,
      metadata: parseMetadata(record.metadata ?? null),
      messages: chatStoreMessages(completionId, record.requestMessages),
      createdAtMs,
      expiresAtMs: this.expiryFor(createdAtMs, true),
    });
  }

  /** Keeps every response unless the request said `store: false` (background ones are kept by the lifecycle). */
  async saveResponse(record: ResponseRecord): Promise<void> {
    if (!record.store) return;
    await this.insertResponse({
      principal: record.principal,
      response: record.response,
      request: {},
      inputItems: record.inputItems,
      background: false,
      stored: true,
    });
  }

  async insertResponse(options: {
    principal: Principal;
    response: JsonObject;
    /** Kept for background responses, which run later from it, and for compaction. */
    request: JsonObject;
    inputItems: unknown;
    background: boolean;
    stored: boolean;
  }): Promise<void> {
    const createdAtMs = this.nowMs();
    await this.responseRows.insertResponse({
      responseId: String(options.response.id),
      owner: ownerScope(options.principal),
      model: String(options.response.model ?? ''),
      status: String(options.response.status ?? 'completed'),
      background: options.background,
      response: options.response,
      request: options.request,
      inputItems: responseInputItems(options.inputItems),
      createdAtMs,
      expiresAtMs: this.expiryFor(createdAtMs, options.stored),
    });
  }

  async listChatCompletions(principal: Principal, filter: CompletionFilter): Promise<CursorList<JsonObject>> {
    const page = await this.withCursor(() => this.repository.listCompletions(ownerScope(principal), filter, this.nowMs()));
    return cursorList({ data: page.data.map(completionBody), hasMore: page.hasMore });
  }

  async getChatCompletion(principal: Principal, completionId: string): Promise<JsonObject> {
    return completionBody(await this.findCompletion(principal, completionId));
  }

  async updateChatCompletion(principal: Principal, completionId: string, metadataValue: unknown): Promise<JsonObject> {
    const metadata = parseMetadata(metadataValue);
    const updated = await this.repository.updateCompletionMetadata(ownerScope(principal), completionId, metadata, this.nowMs());
    if (!updated) throw notFound('Chat completion');
    return completionBody(updated);
  }

  async deleteChatCompletion(principal: Principal, completionId: string): Promise<JsonObject> {
    const deleted = await this.repository.deleteCompletion(ownerScope(principal), completionId, this.nowMs());
    if (!deleted) throw notFound('Chat completion');
    return { id: completionId, object: 'chat.completion.deleted', deleted: true };
  }

  async listChatCompletionMessages(principal: Principal, completionId: string, page: PageRequest): Promise<CursorList<JsonObject>> {
    await this.findCompletion(principal, completionId);
    return this.itemList(completionId, page);
  }

  /** A visible response of this bearer, or a 404. */
  async findResponse(principal: Principal, responseId: string): Promise<StoredResponse> {
    const found = await this.responseRows.findResponse(ownerScope(principal), responseId, this.nowMs());
    if (!found) throw notFound('Response');
    return found;
  }

  async deleteResponse(principal: Principal, responseId: string): Promise<JsonObject> {
    const deleted = await this.responseRows.deleteResponse(ownerScope(principal), responseId, this.nowMs());
    if (!deleted) throw notFound('Response');
    return { id: responseId, object: 'response', deleted: true };
  }

  async listInputItems(principal: Principal, responseId: string, page: PageRequest): Promise<CursorList<JsonObject>> {
    await this.findResponse(principal, responseId);
    return this.itemList(responseId, page);
  }

  /** Every input item of a response, in order (for compaction). */
  async allInputItems(responseId: string): Promise<StoredItem[]> {
    const items: StoredItem[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await this.repository.listItems(responseId, { limit: 100, order: 'asc', after });
      items.push(...page.data);
      if (!page.hasMore || page.data.length === 0) return items;
      after = page.data[page.data.length - 1]!.itemId;
    }
  }

  async purgeExpired(): Promise<number> {
    let total = 0;
    for (;;) {
      const purged = await this.repository.purgeExpired(this.nowMs());
      total += purged;
      if (purged === 0) return total;
    }
  }

  start(): void {
    if (this.purgeTimer) return;
    this.purgeTimer = setInterval(() => {
      if (this.purgeRunning) return;
      this.purgeRunning = this.purgeExpired()
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'stored object purge failed'))
        .finally(() => (this.purgeRunning = undefined));
    }, PURGE_INTERVAL_MS);
    this.purgeTimer.unref();
  }

  async close(): Promise<void> {
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
    await this.purgeRunning;
  }

  private async findCompletion(principal: Principal, completionId: string): Promise<StoredCompletion> {
    const found = await this.repository.findCompletion(ownerScope(principal), completionId, this.nowMs());
    if (!found) throw notFound('Chat completion');
    return found;
  }

  private async itemList(objectId: string, page: PageRequest): Promise<CursorList<JsonObject>> {
    const items = await this.withCursor(() => this.repository.listItems(objectId, page));
    return cursorList({ data: items.data.map((entry) => entry.item), hasMore: items.hasMore });
  }

  private async withCursor<T>(read: () => Promise<T>): Promise<T> {
    try {
      return await read();
    } catch (error) {
      if (error instanceof UnknownCursorError) {
        throw new AppError('BAD_REQUEST', `The cursor 'after=${error.cursor}' names no object in this list`, {
          details: { param: 'after' },
        });
      }
      throw error;
    }
  }
}

function completionBody(stored: StoredCompletion): JsonObject {
  return { ...stored.completion, metadata: stored.metadata };
}

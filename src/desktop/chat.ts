/**
 * Desktop chat conversations: per customer, each with a title, a model (id or alias of the gateway catalogue)
 * and an optional system prompt; messages are stored in order. Another customer's conversation (or an unknown
 * id) is a 404, never a confirmation that it exists.
 */
import type { Principal } from '../accounts/principal.js';
import type { ExecuteOptions, GatewayCall } from '../gateway/execute.js';
import type { Collected } from '../gateway/protocols/shared/collect.js';
import type { CallSignal } from '../gateway/spec/call-signal.js';
import type { Message } from '../gateway/spec/request.js';
import type { StreamPart } from '../gateway/spec/stream-parts.js';
import { notFound, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { iso } from './text.js';

export interface ConversationInput {
  title?: string;
  model?: string;
  systemPrompt?: string;
}

export interface ChatDeps {
  storage: Storage;
  clock: Clock;
  defaultModel: string;
  /** Whether the gateway knows this model id or alias. */
  knownModel(id: string): boolean;
  /** The gateway's metered call (billed like any call; 402 when the wallet cannot cover it). */
  execute(options: ExecuteOptions): Promise<GatewayCall>;
  /** How many earlier messages go with a prompt as its context. */
  contextMessages: number;
}

export interface SendOptions {
  principal: Principal;
  requestId: string;
  signal: CallSignal;
  host?: string;
  stream: boolean;
}

type ConversationRow = { id: number | string; title: string; model: string; system_prompt: string | null; created_at: number | string; updated_at: number | string };

function conversationJson(row: ConversationRow) {
  return { id: Number(row.id), title: row.title, model: row.model, system_prompt: row.system_prompt, created_at: iso(row.created_at), updated_at: iso(row.updated_at) };
}

export class DesktopChat {
  constructor(private readonly deps: ChatDeps) {}

  async create(customerId: number, input: ConversationInput) {
    const model = input.model ?? this.deps.defaultModel;
    if (!this.deps.knownModel(model)) throw validationError([{ loc: ['body', 'model'], msg: `Unknown model ${model}`, type: 'value_error' }]);
    const now = this.deps.clock.nowMs();
    const title = input.title?.trim() || 'New chat';
    const row = await this.deps.storage.db
      .insertInto('desktop_chat_conversations')
      .values({ customer_id: customerId, title, model, system_prompt: input.systemPrompt ?? null, created_at: now, updated_at: now })
      .returning(['id', 'title', 'model', 'system_prompt', 'created_at', 'updated_at'])
      .executeTakeFirstOrThrow();
    return conversationJson(row);
  }

  /** Most recently updated first; `beforeId` pages by id among equals. */
  async list(customerId: number, limit: number) {
    const rows = await this.deps.storage.db
      .selectFrom('desktop_chat_conversations')
      .select(['id', 'title', 'model', 'system_prompt', 'created_at', 'updated_at'])
      .where('customer_id', '=', customerId)
      .orderBy('updated_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
    return { data: rows.map(conversationJson) };
  }

  /** The caller's conversation or a 404. */
  async get(customerId: number, conversationId: number) {
    const row = await this.deps.storage.db
      .selectFrom('desktop_chat_conversations')
      .select(['id', 'title', 'model', 'system_prompt', 'created_at', 'updated_at'])
      .where('id', '=', conversationId)
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw notFound('Conversation');
    return conversationJson(row);
  }

  /** Deletes the conversation and its messages in one transaction. */
  async delete(customerId: number, conversationId: number): Promise<void> {
    await this.deps.storage.db.transaction().execute(async (trx) => {
      const owned = await trx.selectFrom('desktop_chat_conversations').select('id').where('id', '=', conversationId).where('customer_id', '=', customerId).executeTakeFirst();
      if (!owned) throw notFound('Conversation');
      await trx.deleteFrom('desktop_chat_messages').where('conversation_id', '=', conversationId).execute();
      await trx.deleteFrom('desktop_chat_conversations').where('id', '=', conversationId).execute();
    });
  }

  /** The conversation's messages in order (oldest first); `afterId` continues from a known message. */
  async messages(customerId: number, conversationId: number, options: { limit: number; afterId?: number }) {
    const conversation = await this.get(customerId, conversationId);
    let query = this.deps.storage.db
      .selectFrom('desktop_chat_messages')
      .select(['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'])
      .where('conversation_id', '=', conversationId)
      .where('customer_id', '=', customerId)
      .orderBy('id')
      .limit(options.limit);
    if (options.afterId !== undefined) query = query.where('id', '>', options.afterId);
    const rows = await query.execute();
    return {
      conversation,
      data: rows.map((row) => this.messageJson(row)),
    };
  }

  /**
   * Sends a prompt with the conversation's saved context through the gateway. Nothing is stored until the call
   * completes: `complete` stores the prompt and the reply together; a refused or failed call stores nothing.
   */
  async send(customerId: number, conversationId: number, content: string, options: SendOptions): Promise<{ parts: AsyncIterable<StreamPart>; complete(collected: Collected): Promise<ReturnType<DesktopChat['messageJson']>[]> }> {
    const conversation = await this.get(customerId, conversationId);
    const history = await this.deps.storage.db
      .selectFrom('desktop_chat_messages')
      .select(['role', 'content'])
      .where('conversation_id', '=', conversationId)
      .where('customer_id', '=', customerId)
      .orderBy('id', 'desc')
      .limit(this.deps.contextMessages)
      .execute();
    const messages: Message[] = history
      .reverse()
      .map((row): Message => (row.role === 'assistant' ? { role: 'assistant', content: [{ type: 'text', text: row.content }], toolCalls: [] } : { role: 'user', content: [{ type: 'text', text: row.content }] }));
    messages.push({ role: 'user', content: [{ type: 'text', text: content }] });
    const call = await this.deps.execute({
      principal: options.principal,
      request: { model: conversation.model, system: conversation.system_prompt ?? undefined, messages, tools: [], stream: options.stream },
      operation: 'chat',
      requestId: options.requestId,
      signal: options.signal,
      host: options.host,
    });
    return {
      parts: call.parts,
      complete: async (collected) => {
        const now = this.deps.clock.nowMs();
        return this.deps.storage.db.transaction().execute(async (trx) => {
          const base = { conversation_id: conversationId, customer_id: customerId, request_id: options.requestId, created_at: now };
          const prompt = await trx
            .insertInto('desktop_chat_messages')
            .values({ ...base, role: 'user', content, model: null, input_tokens: null, output_tokens: null })
            .returning(['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'])
            .executeTakeFirstOrThrow();
          const reply = await trx
            .insertInto('desktop_chat_messages')
            .values({ ...base, role: 'assistant', content: collected.text, model: conversation.model, input_tokens: collected.usage?.inputTokens ?? null, output_tokens: collected.usage?.outputTokens ?? null })
            .returning(['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'])
            .executeTakeFirstOrThrow();
          await trx.updateTable('desktop_chat_conversations').set({ updated_at: now }).where('id', '=', conversationId).execute();
          return [this.messageJson(prompt), this.messageJson(reply)];
        });
      },
    };
  }

  messageJson(row: { id: number | string; role: string; content: string; model: string | null; input_tokens: number | string | null; output_tokens: number | string | null; created_at: number | string }) {
    return {
      id: Number(row.id),
      role: row.role,
      content: row.content,
      model: row.model,
      input_tokens: row.input_tokens === null ? null : Number(row.input_tokens),
      output_tokens: row.output_tokens === null ? null : Number(row.output_tokens),
      created_at: iso(row.created_at),
    };
  }
}

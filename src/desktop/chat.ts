/**
 * Desktop chat conversations: per customer, each with a title, a model (id or alias of the gateway catalog)
 * and an optional system prompt; messages are stored in order. Another customer's conversation (or an unknown
 * id) is a 404, never a confirmation that it exists. A message uses the customer's free daily quota when its
 * model is a free one and messages are left today, else it is billed to the wallet. A research message stores the
 * prompt and an empty reply at once and fills the reply when its background analysis completes.
 */
import type { Principal } from '../accounts/principal.js';
import type { Meter } from '../billing/meter.js';
import type { Collected } from '../gateway/protocols/shared/collect.js';
import type { Message, NormalizedRequest } from '../gateway/normalized/request.js';
import { AppError, isAppError, notFound, validationError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import { researchJson, type ChatResearch } from './chat-research.js';
import type { FreeQuota } from './chat-quota.js';
import { iso, storableText } from './text.js';

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
  /** How many earlier messages go with a prompt as its context. */
  contextMessages: number;
  quota: FreeQuota;
  research: ChatResearch;
  /** What the wallet can pay now, and whether an Unlimited plan is active (research pre-check). */
  wallet(customerId: number): Promise<{ availableMicros: number; plan: string | null }>;
}

export interface PrepareOptions {
  requestId: string;
  stream: boolean;
}

export interface ResearchOptions {
  principal: Principal;
  requestId: string;
  host?: string;
}

/** A prompt ready for its model call, and what follows the call. */
export interface PreparedMessage {
  request: NormalizedRequest;
  /** The free quota's meter when a free message was taken, else absent (the wallet's). */
  meter?: Meter;
  free: boolean;
  /** What a refused call answers: the free message given back, or a wallet refusal saying why the quota did not cover it. */
  refused(error: unknown): Promise<unknown>;
  /** Stores the prompt and the completed reply; the two messages. */
  complete(collected: Collected): Promise<MessageJson[]>;
  /** The caller's free quota now. */
  freeQuota(): ReturnType<FreeQuota['status']>;
}

type ConversationRow = {
  id: number | string;
  title: string;
  model: string;
  system_prompt: string | null;
  created_at: number | string;
  updated_at: number | string;
};

function conversationJson(row: ConversationRow) {
  return {
    id: Number(row.id),
    title: row.title,
    model: row.model,
    system_prompt: row.system_prompt,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

export type MessageJson = ReturnType<DesktopChat['messageJson']>;

export class DesktopChat {
  constructor(private readonly deps: ChatDeps) {}

  async create(customerId: number, input: ConversationInput) {
    const model = input.model ?? this.deps.defaultModel;
    if (!this.deps.knownModel(model))
      throw validationError([{ loc: ['body', 'model'], msg: `Unknown model ${model}`, type: 'value_error' }]);
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
      const owned = await trx
        .selectFrom('desktop_chat_conversations')
        .select('id')
        .where('id', '=', conversationId)
        .where('customer_id', '=', customerId)
        .executeTakeFirst();
      if (!owned) throw notFound('Conversation');
      await trx.deleteFrom('desktop_chat_research').where('conversation_id', '=', conversationId).execute();
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
    const research = await this.deps.research.forMessages(
      customerId,
      rows.filter((row) => row.role === 'assistant').map((row) => Number(row.id)),
    );
    return {
      conversation,
      data: rows.map((row) => this.messageJson(row, research.get(Number(row.id)))),
    };
  }

  /**
   * A prompt with the conversation's saved context, ready for the gateway (desktop-chat-protocol.ts drives it).
   * Nothing is stored until the call completes: `complete` stores the prompt and the reply together; a refused or
   * failed call stores nothing (and `refused` gives a free message it took back).
   */
  async prepare(customerId: number, conversationId: number, content: string, options: PrepareOptions): Promise<PreparedMessage> {
    const conversation = await this.get(customerId, conversationId);
    const messages = await this.context(customerId, conversationId);
    messages.push({ role: 'user', content: [{ type: 'text', text: content }] });
    const { quota } = this.deps;
    const slot = quota.coversModel(conversation.model) ? await quota.reserve(customerId, options.requestId) : null;
    return {
      request: { model: conversation.model, system: conversation.system_prompt ?? undefined, messages, tools: [], stream: options.stream },
      // A free message runs the same call with the quota's meter in place of the wallet's.
      meter: slot ? quota.meterFor(slot) : undefined,
      free: slot !== null,
      refused: async (error) => {
        if (slot) await quota.release(slot);
        return slot ? error : this.walletRefusal(customerId, conversation.model, error);
      },
      complete: (collected) => this.store(customerId, conversationId, content, conversation.model, options.requestId, collected),
      freeQuota: () => quota.status(customerId),
    };
  }

  /** Stores a completed message: the prompt and the reply together. */
  private async store(customerId: number, conversationId: number, content: string, model: string, requestId: string, collected: Collected) {
    const now = this.deps.clock.nowMs();
    return this.deps.storage.db.transaction().execute(async (trx) => {
      const base = { conversation_id: conversationId, customer_id: customerId, request_id: requestId, created_at: now };
      const prompt = await trx
        .insertInto('desktop_chat_messages')
        .values({ ...base, role: 'user', content: storableText(content), model: null, input_tokens: null, output_tokens: null })
        .returning(['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'])
        .executeTakeFirstOrThrow();
      const reply = await trx
        .insertInto('desktop_chat_messages')
        .values({
          ...base,
          role: 'assistant',
          content: storableText(collected.text),
          model,
          input_tokens: collected.usage?.inputTokens ?? null,
          output_tokens: collected.usage?.outputTokens ?? null,
        })
        .returning(['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'])
        .executeTakeFirstOrThrow();
      await trx.updateTable('desktop_chat_conversations').set({ updated_at: now }).where('id', '=', conversationId).execute();
      return [this.messageJson(prompt), this.messageJson(reply)];
    });
  }

  /**
   * Starts a research analysis of the prompt: stores the prompt, an empty reply and the `pending` analysis in one
   * transaction, then runs it in the background (every step a billed model call; the free quota does not cover
   * research). 402 at once when the wallet has nothing available and no Unlimited plan.
   */
  async research(customerId: number, conversationId: number, content: string, options: ResearchOptions) {
    const conversation = await this.get(customerId, conversationId);
    const wallet = await this.deps.wallet(customerId);
    if (wallet.availableMicros <= 0 && wallet.plan === null) {
      throw new AppError(
        'INSUFFICIENT_CREDIT',
        'Research is billed to the wallet (one model call per step), and the wallet has no available credit',
        {
          details: { code: 'insufficient_credit', free_quota: await this.deps.quota.status(customerId) },
        },
      );
    }
    const now = this.deps.clock.nowMs();
    const stored = await this.deps.storage.db.transaction().execute(async (trx) => {
      const base = {
        conversation_id: conversationId,
        customer_id: customerId,
        request_id: options.requestId,
        input_tokens: null,
        output_tokens: null,
        created_at: now,
      };
      const columns = ['id', 'role', 'content', 'model', 'input_tokens', 'output_tokens', 'created_at'] as const;
      const prompt = await trx
        .insertInto('desktop_chat_messages')
        .values({ ...base, role: 'user', content: storableText(content), model: null })
        .returning(columns)
        .executeTakeFirstOrThrow();
      const reply = await trx
        .insertInto('desktop_chat_messages')
        .values({ ...base, role: 'assistant', content: '', model: conversation.model })
        .returning(columns)
        .executeTakeFirstOrThrow();
      const research = await trx
        .insertInto('desktop_chat_research')
        .values({
          message_id: Number(reply.id),
          conversation_id: conversationId,
          customer_id: customerId,
          status: 'pending',
          prompt: storableText(content),
          title: null,
          sections_json: '[]',
          sources_json: '[]',
          error: null,
          calls: 0,
          created_at: now,
          updated_at: now,
          completed_at: null,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      await trx.updateTable('desktop_chat_conversations').set({ updated_at: now }).where('id', '=', conversationId).execute();
      return { prompt, reply, research };
    });
    this.deps.research.launch({
      researchId: Number(stored.research.id),
      messageId: Number(stored.reply.id),
      customerId,
      model: conversation.model,
      prompt: content,
      principal: options.principal,
      requestId: options.requestId,
      host: options.host,
    });
    return { messages: [this.messageJson(stored.prompt), this.messageJson(stored.reply, researchJson(stored.research))] };
  }

  /** The caller's completed research of a reply message (404 otherwise). */
  completedResearch(customerId: number, messageId: number) {
    return this.deps.research.completed(customerId, messageId);
  }

  /** The saved context of a prompt: the latest messages, oldest first (replies of unfinished research skipped). */
  private async context(customerId: number, conversationId: number): Promise<Message[]> {
    const history = await this.deps.storage.db
      .selectFrom('desktop_chat_messages')
      .select(['role', 'content'])
      .where('conversation_id', '=', conversationId)
      .where('customer_id', '=', customerId)
      .where('content', '!=', '')
      .orderBy('id', 'desc')
      .limit(this.deps.contextMessages)
      .execute();
    return history
      .reverse()
      .map((row): Message =>
        row.role === 'assistant'
          ? { role: 'assistant', content: [{ type: 'text', text: row.content }], toolCalls: [] }
          : { role: 'user', content: [{ type: 'text', text: row.content }] },
      );
  }

  /** A wallet refusal of a message that got no free message, saying why the free quota did not cover it. */
  private async walletRefusal(customerId: number, model: string, error: unknown): Promise<unknown> {
    if (!isAppError(error) || error.code !== 'INSUFFICIENT_CREDIT') return error;
    const freeQuota = await this.deps.quota.status(customerId);
    const exhausted = this.deps.quota.coversModel(model);
    const message = exhausted
      ? 'The free messages of today are used up and the wallet cannot cover this message'
      : `Messages to ${model} are not covered by the free daily quota and the wallet cannot cover this one`;
    return new AppError('INSUFFICIENT_CREDIT', message, {
      details: { ...error.details, code: exhausted ? 'free_quota_exhausted' : 'insufficient_credit', free_quota: freeQuota },
    });
  }

  messageJson(
    row: {
      id: number | string;
      role: string;
      content: string;
      model: string | null;
      input_tokens: number | string | null;
      output_tokens: number | string | null;
      created_at: number | string;
    },
    research?: ReturnType<typeof researchJson>,
  ) {
    return {
      id: Number(row.id),
      role: row.role,
      content: row.content,
      model: row.model,
      input_tokens: row.input_tokens === null ? null : Number(row.input_tokens),
      output_tokens: row.output_tokens === null ? null : Number(row.output_tokens),
      created_at: iso(row.created_at),
      research: research ?? null,
    };
  }
}

/** Shapes every catalog uses: nullable values, money, times, closed sets of words, and answers that are not JSON. */
import { Type, type TSchema } from '@sinclair/typebox';

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Timestamp = Type.String({ description: 'ISO 8601 date-time, UTC.' });

/** One of a closed set of words. */
export const Literals = <T extends string>(...values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** Money crosses JSON as integer micro-USD and the same amount as a 6-decimal USD string. */
export const Money = Type.Object({
  micros: Type.Integer({ description: 'Micro-USD (1 USD = 1 000 000).' }),
  usd: Type.String({ description: 'The same amount in USD, 6 decimals.' }),
});

/**
 * An answer that is not JSON (a file, a page, an event stream), documented under its media type. A plain object,
 * not a TypeBox schema: @fastify/swagger reads `content` as the answer's media types, and the contract check,
 * which compiles TypeBox schemas only, never reads such an answer.
 */
export function Media(mediaType: string, description: string, format?: 'binary'): TSchema {
  return { description, content: { [mediaType]: { schema: { type: 'string', ...(format ? { format } : {}) } } } } as unknown as TSchema;
}

export const EventStream = (description: string) => Media('text/event-stream', description);

/** A redirect: no body, the `Location` header says where. */
export const Redirect = (description: string) => Type.Null({ description });

export const NoContent = Type.Null({ description: 'No content' });

/** A wallet's state (`walletJson`): balances, holds, the plan and its end. */
export const Wallet = Type.Object({
  balance: Money,
  holds: Money,
  available: Money,
  cash_balance: Money,
  plan: Nullable(Type.String()),
  plan_ends_at: Nullable(Timestamp),
  currency: Type.Literal('USD'),
});

/** A purchase: a card, crypto, cash or top-up payment and its state. */
export const Payment = Type.Object({
  payment_id: Type.String(),
  method: Literals('card', 'crypto', 'cash', 'top_up'),
  wallet: Literals('token', 'cash'),
  pack_id: Nullable(Type.String()),
  status: Literals('open', 'pending', 'partially_paid', 'paid', 'failed', 'expired'),
  amount: Money,
  credit: Money,
  refunded: Money,
  clawed_back: Money,
  debt: Money,
  currency: Type.Literal('USD'),
  created_at: Timestamp,
  credited_at: Nullable(Timestamp),
});

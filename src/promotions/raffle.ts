/**
 * The raffle: one per period (`promotions.raffle.periodDays`), opened on first use with a secret random seed
 * whose SHA-256 is published at once; entries are earned by activity (daily check-ins, paid top-ups) and each
 * source counts once. At the draw time the winners are computed from the seed and the published entry list,
 * credited from the promotions account in the same transaction, and the seed is published, so anyone can check
 * the seed against its hash and recompute the winners:
 *
 *   tickets: the entrants ordered by entrant id, each holding as many consecutive tickets as entries;
 *   for i = 0, 1, 2, …: ticket_i = SHA-256(seed + ":" + i) read as a big-endian integer, modulo the ticket count;
 *   the holder of ticket_i wins unless already a winner; stop when enough winners (or every entrant) are drawn.
 *
 * The draw runs by itself: opening a raffle schedules its draw (`onOpened`, the job runner's `raffle.draw`), and
 * nobody has to look at the raffle for it to happen. A refunded top-up takes its entries out of a raffle not
 * drawn yet (a drawn raffle's published entry list stays as it was drawn).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Wallet } from '../billing/wallet.js';
import type { PromotionsConfig } from '../config/sections/payments.js';
import type { Database } from '../storage/schema.js';
import type { RafflesTable } from '../storage/tables/promotions.js';
import type { PaymentListener } from '../billing/payments/ports.js';
import type { Clock } from '../kernel/clock.js';
import { grantOnce } from './grants.js';

type Executor = Kysely<Database> | Transaction<Database>;
type RaffleRow = Selectable<RafflesTable>;
const DAY_MS = 24 * 3600_000;

export const sha256Hex = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Published pseudonym of an entrant in one raffle (the list of entries carries no customer ids). */
export const entrantId = (raffleId: number, customerId: number): string =>
  sha256Hex(`raffle:${raffleId}:customer:${customerId}`).slice(0, 16);

export interface Entrant {
  entrant: string;
  entries: number;
}

/** The published draw: who wins given the seed and the entry list (exported so tests and anyone can recompute). */
export function drawWinners(seed: string, entrants: Entrant[], count: number): string[] {
  const ordered = [...entrants]
    .filter((entrant) => entrant.entries > 0)
    .sort((a, b) => (a.entrant < b.entrant ? -1 : a.entrant > b.entrant ? 1 : 0));
  const total = ordered.reduce((sum, entrant) => sum + entrant.entries, 0);
  const winners: string[] = [];
  if (total === 0) return winners;
  const wanted = Math.min(count, ordered.length);
  for (let i = 0; winners.length < wanted; i += 1) {
    const ticket = Number(BigInt(`0x${sha256Hex(`${seed}:${i}`)}`) % BigInt(total));
    let cursor = 0;
    for (const entrant of ordered) {
      cursor += entrant.entries;
      if (ticket < cursor) {
        if (!winners.includes(entrant.entrant)) winners.push(entrant.entrant);
        break;
      }
    }
  }
  return winners;
}

export class Raffles {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly wallet: Wallet,
    private readonly config: () => PromotionsConfig['raffle'],
    /** A raffle was just opened (in the opening transaction when there is one): schedules its draw. */
    private readonly onOpened: (db: Executor, raffle: { id: number; drawsAtMs: number }) => Promise<void> = async () => undefined,
  ) {}

  private periodMs(): number {
    return this.config().periodDays * DAY_MS;
  }

  /** The raffle of the period containing `nowMs`, opened (seed drawn, hash published) on first use. */
  async current(db: Executor, nowMs: number): Promise<RaffleRow> {
    const period = Math.floor(nowMs / this.periodMs());
    const existing = await db.selectFrom('raffles').selectAll().where('period', '=', period).executeTakeFirst();
    if (existing) return existing;
    const seed = randomBytes(32).toString('hex');
    const { prizeMicros, winners } = this.config();
    const inserted = await db
      .insertInto('raffles')
      .values({
        period,
        opens_at: period * this.periodMs(),
        draws_at: (period + 1) * this.periodMs(),
        seed,
        seed_hash: sha256Hex(seed),
        prize_micros: prizeMicros,
        winner_count: winners,
        winners_json: null,
        drawn_at: null,
      })
      .onConflict((conflict) => conflict.column('period').doNothing())
      .returning(['id', 'draws_at'])
      .executeTakeFirst();
    if (inserted) await this.onOpened(db, { id: Number(inserted.id), drawsAtMs: Number(inserted.draws_at) });
    return db.selectFrom('raffles').selectAll().where('period', '=', period).executeTakeFirstOrThrow();
  }

  /** Raffles not drawn yet (their draws are scheduled again at start: raffles opened before the job runner existed). */
  async undrawn(): Promise<{ id: number; drawsAtMs: number }[]> {
    const rows = await this.db.selectFrom('raffles').select(['id', 'draws_at']).where('drawn_at', 'is', null).execute();
    return rows.map((row) => ({ id: Number(row.id), drawsAtMs: Number(row.draws_at) }));
  }

  /**
   * Takes the entries of one source (a refunded top-up) out of every raffle not drawn yet; returns how many rows
   * went. The raffles it takes from are locked first (an update that changes nothing): a draw that already claimed
   * one is waited for, and that raffle is then drawn and keeps the entries it was drawn from.
   */
  async removeEntries(trx: Transaction<Database>, source: string): Promise<number> {
    const held = await trx.selectFrom('raffle_entries').select('raffle_id').where('source', '=', source).execute();
    if (held.length === 0) return 0;
    const undrawn = await trx
      .updateTable('raffles')
      .set((eb) => ({ draws_at: eb.ref('draws_at') }))
      .where(
        'id',
        'in',
        held.map((row) => Number(row.raffle_id)),
      )
      .where('drawn_at', 'is', null)
      .returning('id')
      .execute();
    if (undrawn.length === 0) return 0;
    const result = await trx
      .deleteFrom('raffle_entries')
      .where('source', '=', source)
      .where(
        'raffle_id',
        'in',
        undrawn.map((row) => Number(row.id)),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /** Adds entries to the current raffle for an activity; the same source counts once. */
  async addEntries(trx: Transaction<Database>, customerId: number, source: string, entries: number, nowMs: number): Promise<void> {
    if (!this.config().enabled || entries <= 0) return;
    const raffle = await this.current(trx, nowMs);
    await trx
      .insertInto('raffle_entries')
      .values({ raffle_id: raffle.id, customer_id: customerId, source, entries, created_at: nowMs })
      .onConflict((conflict) => conflict.columns(['raffle_id', 'source']).doNothing())
      .execute();
  }

  async entrants(db: Executor, raffleId: number): Promise<(Entrant & { customerId: number })[]> {
    const rows = await db
      .selectFrom('raffle_entries')
      .select(['customer_id', (eb) => eb.fn.sum<number>('entries').as('entries')])
      .where('raffle_id', '=', raffleId)
      .groupBy('customer_id')
      .execute();
    return rows.map((row) => ({
      customerId: Number(row.customer_id),
      entrant: entrantId(raffleId, Number(row.customer_id)),
      entries: Number(row.entries),
    }));
  }

  /** Draws every raffle whose draw time has passed (once: the draw's row update is guarded) and credits the winners. */
  async drawDue(nowMs: number): Promise<number> {
    const due = await this.db.selectFrom('raffles').select('id').where('draws_at', '<=', nowMs).where('drawn_at', 'is', null).execute();
    let drawn = 0;
    for (const { id } of due) {
      const done = await this.db.transaction().execute(async (trx) => {
        const claimed = await trx
          .updateTable('raffles')
          .set({ drawn_at: nowMs })
          .where('id', '=', id)
          .where('drawn_at', 'is', null)
          .returningAll()
          .executeTakeFirst();
        if (!claimed) return false;
        const entrants = await this.entrants(trx, id);
        const winners = drawWinners(claimed.seed, entrants, claimed.winner_count);
        await trx
          .updateTable('raffles')
          .set({ winners_json: JSON.stringify(winners) })
          .where('id', '=', id)
          .execute();
        for (const winner of winners) {
          const customerId = entrants.find((entrant) => entrant.entrant === winner)!.customerId;
          await grantOnce(trx, this.wallet, {
            customerId,
            promotion: 'raffle',
            grantKey: String(id),
            amountMicros: Number(claimed.prize_micros),
            details: { raffle_id: id },
            nowMs,
          });
        }
        return true;
      });
      if (done) drawn += 1;
    }
    return drawn;
  }

  async status(customerId: number, nowMs: number) {
    const raffle = await this.current(this.db, nowMs);
    const entrants = await this.entrants(this.db, raffle.id);
    const mine = entrants.find((entrant) => entrant.customerId === customerId)?.entries ?? 0;
    const past = await this.db.selectFrom('raffles').selectAll().where('drawn_at', 'is not', null).orderBy('id', 'desc').limit(5).execute();
    const pastJson = [];
    for (const row of past) {
      const list = await this.entrants(this.db, row.id);
      const winners = JSON.parse(row.winners_json ?? '[]') as string[];
      pastJson.push({
        raffle_id: row.id,
        drew_at: new Date(Number(row.draws_at)).toISOString(),
        prize_micros: Number(row.prize_micros),
        seed_hash: row.seed_hash,
        seed: row.seed,
        entries: list.map(({ entrant, entries }) => ({ entrant, entries })),
        winners,
        you_won: winners.includes(entrantId(row.id, customerId)),
      });
    }
    const config = this.config();
    return {
      enabled: config.enabled,
      current: {
        raffle_id: raffle.id,
        opens_at: new Date(Number(raffle.opens_at)).toISOString(),
        draws_at: new Date(Number(raffle.draws_at)).toISOString(),
        prize_micros: Number(raffle.prize_micros),
        winners: raffle.winner_count,
        seed_hash: raffle.seed_hash,
        your_entries: mine,
        your_entrant_id: entrantId(raffle.id, customerId),
        total_entries: entrants.reduce((sum, entrant) => sum + entrant.entries, 0),
        entrants: entrants.length,
      },
      how_to_enter: { per_daily_checkin: config.entriesPerCheckin, per_paid_top_up: config.entriesPerPaidTopUp },
      past_draws: pastJson,
      fairness:
        'The seed hash is published when the raffle opens and the seed after the draw. Order entrants by entrant id, give each as many consecutive tickets as entries; for i = 0, 1, …, ticket = SHA-256(seed + ":" + i) as a big-endian integer modulo the total tickets; its holder wins unless already drawn.',
    };
  }
}

/** Paid top-ups (card, crypto) earn raffle entries; a refunded top-up's entries go with it (from a raffle not drawn yet). */
export function raffleEntriesOfPayments(raffle: Raffles, entriesPerPaidTopUp: () => number, clock: Clock): PaymentListener {
  return {
    paid: (trx, payment) =>
      payment.method === 'card' || payment.method === 'crypto'
        ? raffle.addEntries(trx, payment.customer_id, `payment:${payment.public_id}`, entriesPerPaidTopUp(), clock.nowMs())
        : Promise.resolve(),
    refunded: async (trx, payment) => void (await raffle.removeEntries(trx, `payment:${payment.public_id}`)),
  };
}

/**
 * Customer accounts: registration, CLI login and operator-created customers. A new customer gets, in one
 * transaction, its row, its wallet (through the `onCustomerCreated` listeners the billing domain registers) and
 * its wallet-linked key (the System Token) plus its username token; plaintexts are returned once.
 */
import { randomBase62 } from '../kernel/ids.js';
import { AppError } from '../kernel/errors.js';
import type { Clock } from '../kernel/clock.js';
import type { Storage } from '../storage/database.js';
import type { Database } from '../storage/schema.js';
import { sql, type Transaction } from 'kysely';
import type { KeyRepository } from './key-repository.js';
import { hashPassword, verifyPassword } from './passwords.js';

export type CustomerCreatedListener = (trx: Transaction<Database>, customerId: number) => Promise<void>;

export interface NewCustomer {
  email: string;
  password?: string;
  name?: string | null;
  vip?: boolean;
}

export interface CreatedCustomer {
  customer: { id: number; email: string; username: string; name: string | null; createdAt: number };
  systemToken: { id: number; key: string; prefix: string; lastFour: string };
  usernameToken: { id: number; key: string; prefix: string; lastFour: string };
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

function isUniqueViolation(error: unknown): boolean {
  const text = String((error as { code?: string; message?: string })?.code ?? '') + String((error as Error)?.message ?? '');
  return /SQLITE_CONSTRAINT|23505|UNIQUE constraint|duplicate key/i.test(text);
}

/** The CLI login's refusal; it tells identity-provider accounts (which start without a password) how to get one. */
export const INVALID_LOGIN =
  'Invalid credentials. An account created through the identity provider has no password until you set one: sign in on the dashboard, open Settings → Password (POST /api/v1/me/password), then log in again.';

export class CustomerService {
  private readonly createdListeners: CustomerCreatedListener[] = [];

  constructor(
    private readonly storage: Storage,
    private readonly keys: KeyRepository,
    private readonly clock: Clock,
  ) {}

  onCustomerCreated(listener: CustomerCreatedListener): void {
    this.createdListeners.push(listener);
  }

  /** Creates a customer; `afterCreate` runs inside the same transaction (e.g. a sign-up credit). */
  async create(input: NewCustomer, afterCreate?: CustomerCreatedListener): Promise<CreatedCustomer> {
    const email = normalizeEmail(input.email);
    const passwordHash = input.password === undefined ? null : await hashPassword(input.password);
    const username = `${
      email
        .split('@')[0]!
        .replace(/[^a-z0-9]/g, '')
        .slice(0, 16) || 'user'
    }-${randomBase62(6).toLowerCase()}`;
    try {
      return await this.storage.db.transaction().execute(async (trx) => {
        const existing = await trx.selectFrom('customers').select('id').where('email', '=', email).executeTakeFirst();
        if (existing) throw new AppError('CONFLICT', 'An account with this email already exists');
        const now = this.clock.nowMs();
        const customer = await trx
          .insertInto('customers')
          .values({
            email,
            username,
            name: input.name ?? null,
            password_hash: passwordHash,
            status: 'active',
            vip: input.vip ? 1 : 0,
            created_at: now,
          })
          .returning(['id', 'email', 'username', 'name', 'created_at'])
          .executeTakeFirstOrThrow();
        for (const listener of this.createdListeners) await listener(trx, customer.id);
        if (afterCreate) await afterCreate(trx, customer.id);
        const system = await this.keys.issue(trx, { customerId: customer.id, kind: 'wallet', role: 'customer', name: 'System Token' });
        const usernameKey = await this.keys.issue(trx, {
          customerId: customer.id,
          kind: 'username',
          role: 'customer',
          name: 'Username token',
        });
        return {
          customer: {
            id: customer.id,
            email: customer.email,
            username: customer.username,
            name: customer.name,
            createdAt: customer.created_at,
          },
          systemToken: { id: system.row.id, key: system.plaintext, prefix: system.row.prefix, lastFour: system.row.last_four },
          usernameToken: {
            id: usernameKey.row.id,
            key: usernameKey.plaintext,
            prefix: usernameKey.row.prefix,
            lastFour: usernameKey.row.last_four,
          },
        };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new AppError('CONFLICT', 'An account with this email already exists');
      throw error;
    }
  }

  /**
   * CLI login by email or username plus password: issues a new wallet-linked key. The same 401 for an unknown
   * account and a wrong password, with the same argon2 cost on both paths.
   */
  async login(identifier: string, password: string, keyName = 'CLI login'): Promise<{ customerId: number; key: string; keyId: number }> {
    const lookup = identifier.includes('@') ? normalizeEmail(identifier) : identifier.trim();
    const row = await this.storage.db
      .selectFrom('customers')
      .select(['id', 'password_hash', 'status'])
      .where(identifier.includes('@') ? 'email' : 'username', '=', lookup)
      .executeTakeFirst();
    const ok = await verifyPassword(row?.password_hash ?? null, password);
    // The same answer for every failure (no account enumeration), saying how an identity-provider account gets a password.
    if (!row || !ok || row.status !== 'active') throw new AppError('UNAUTHENTICATED', INVALID_LOGIN);
    const issued = await this.keys.issue(this.storage.db, { customerId: row.id, kind: 'wallet', role: 'customer', name: keyName });
    return { customerId: row.id, key: issued.plaintext, keyId: issued.row.id };
  }

  /** What an identity-provider sign-up recorded (plan, amount, source, country, device, mobile), for the operator; null: none. */
  async signupAttribution(customerId: number) {
    const row = await this.storage.db
      .selectFrom('signup_attributions')
      .selectAll()
      .where('customer_id', '=', customerId)
      .executeTakeFirst();
    if (!row) return null;
    return {
      referral_code: row.referral_code,
      plan_id: row.plan_id,
      amount_usd_micros: row.amount_usd_micros === null ? null : Number(row.amount_usd_micros),
      source: row.source,
      country_code: row.country_code,
      country_name: row.country_name,
      device_fingerprint: row.device_fingerprint,
      mobile_number: row.mobile_number,
      created_at: new Date(Number(row.created_at)).toISOString(),
    };
  }

  async get(customerId: number) {
    const row = await this.storage.db
      .selectFrom('customers')
      .select(['id', 'email', 'username', 'name', 'status', 'vip', 'created_at'])
      .where('id', '=', customerId)
      .executeTakeFirst();
    if (!row) throw new AppError('NOT_FOUND', 'Customer not found');
    return row;
  }

  /** Customers by id; `email` keeps those whose address contains it (case-insensitive). */
  list(options: { limit: number; afterId?: number; email?: string }) {
    let query = this.storage.db
      .selectFrom('customers')
      .select(['id', 'email', 'username', 'name', 'status', 'vip', 'created_at'])
      .where('id', '>', options.afterId ?? 0);
    const needle = options.email?.trim().toLowerCase();
    if (needle) {
      const pattern = `%${needle.replace(/[\\%_]/g, (match) => `\\${match}`)}%`;
      query = query.where(sql<boolean>`email like ${pattern} escape '\\'`);
    }
    return query.orderBy('id').limit(options.limit).execute();
  }
}

/**
 * Desktop coder projects: a named workspace per customer (a managed agent project, so the app runs turns in it)
 * with a managed database. A customer holds at most `freeSlots` plus bought slots; the count is taken and the
 * slot claimed in one transaction under the customer's lock, so concurrent creates cannot exceed it. The slow
 * parts (workspace, database) run after that transaction, never inside one; the claimed row says what exists so
 * far, so an interrupted create or delete can be finished by a later DELETE.
 */
import path from 'node:path';
import type { Logger } from 'pino';
import type { Selectable, Transaction } from 'kysely';
import type { SecretBox } from '../../accounts/secrets.js';
import type { Project, ProjectStore } from '../../agent/projects/types.js';
import { IdempotencyStore, requestHash } from '../../billing/idempotency.js';
import type { Wallet } from '../../billing/wallet.js';
import type { DesktopConfig } from '../../config/sections/desktop.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { moneyJson } from '../../kernel/money.js';
import type { Storage } from '../../storage/database.js';
import type { Database } from '../../storage/schema.js';
import type { DesktopCoderProjectsTable } from '../../storage/tables/desktop-coder.js';
import type { DatabaseEngineName, ManagedDatabaseEngine, ProvisionedDatabase } from './managed-databases.js';

export const CODER_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const LOCK_SCOPE = 0x434f_4452;
/** A create or delete that made no progress for this long was interrupted; DELETE may take it over. */
const STALE_MS = 10 * 60_000;
const SECRET_PURPOSE = 'coder-database' as const;

type Row = Selectable<DesktopCoderProjectsTable>;
type Executor = Transaction<Database> | Storage['db'];

export interface CoderProjectsDeps {
  storage: Storage;
  clock: Clock;
  logger: Logger;
  limits: DesktopConfig['coder'];
  idempotencyRetentionMs: number;
  projects: Pick<ProjectStore, 'create' | 'remove'>;
  /** The engine new databases are made with, and every configured engine (rows remember theirs). */
  engines: { forNew: ManagedDatabaseEngine; byName: Partial<Record<DatabaseEngineName, ManagedDatabaseEngine>> };
  secrets: SecretBox;
  wallet: Pick<Wallet, 'creditIn'>;
  /** Whether an agent turn runs in the project right now. */
  projectBusy(customerId: number, projectId: string): boolean;
  /** Whether any agent turn of the customer runs or starts right now (in any project or thread). */
  agentBusy(customerId: number): boolean;
  /**
   * Stops the customer's app-server, and with it every process its commands left running (the sandbox's PID
   * namespace ends with it), so nothing of the agent changes the workspace while it is deleted.
   */
  stopAgent(customerId: number): Promise<void>;
}

export interface SlotSummary {
  used: number;
  free: number;
  purchased: number;
  total: number;
  available: number;
  max: number;
  price: { micros: number; usd: string };
}

function checkName(raw: string): string {
  if (!CODER_NAME_PATTERN.test(raw)) {
    throw validationError([
      {
        loc: ['body', 'name'],
        msg: 'name must be 1-64 characters of letters, digits, ".", "_" or "-", starting with a letter or digit',
        type: 'value_error.str.regex',
      },
    ]);
  }
  return raw;
}

/** The database server failing is the client's 503 (retry later), its details only in the log. */
function databaseUnavailable(error: unknown): AppError {
  if (error instanceof AppError) return error;
  return new AppError('UPSTREAM_UNAVAILABLE', 'The managed database server is unavailable; try again later', {
    retryAfterSeconds: 5,
    cause: error,
  });
}

export class CoderProjects {
  private readonly idempotency: IdempotencyStore;

  constructor(private readonly deps: CoderProjectsDeps) {
    this.idempotency = new IdempotencyStore(deps.storage, deps.clock, deps.idempotencyRetentionMs);
  }

  private iso = (ms: number) => new Date(ms).toISOString();

  private async slotsIn(executor: Executor, customerId: number): Promise<SlotSummary> {
    const { limits } = this.deps;
    const [used, purchased] = await Promise.all([
      executor
        .selectFrom('desktop_coder_projects')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('customer_id', '=', customerId)
        .executeTakeFirst(),
      executor
        .selectFrom('desktop_coder_slot_purchases')
        .select((eb) => eb.fn.countAll().as('n'))
        .where('customer_id', '=', customerId)
        .executeTakeFirst(),
    ]);
    const usedCount = Number(used?.n ?? 0);
    const purchasedCount = Number(purchased?.n ?? 0);
    const total = Math.min(limits.freeSlots + purchasedCount, limits.maxSlots);
    return {
      used: usedCount,
      free: limits.freeSlots,
      purchased: purchasedCount,
      total,
      available: Math.max(0, total - usedCount),
      max: limits.maxSlots,
      price: moneyJson(limits.slotPriceMicros),
    };
  }

  private databaseView(row: Row) {
    if (row.status !== 'active' || row.db_engine === null) return null;
    if (row.db_engine === 'sqlite') {
      // Workspace-relative, like every path the service shows: the server's own folders stay private.
      const file = path.basename(row.db_path ?? '');
      return { engine: 'sqlite', path: file, url: `file:${file}` };
    }
    const password = this.unseal(row.db_password_sealed);
    const host = row.db_host ?? 'localhost';
    const port = Number(row.db_port ?? 5432);
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `postgresql://${encodeURIComponent(row.db_user ?? '')}:${encodeURIComponent(password ?? '')}@${urlHost}:${port}/${row.db_name}`;
    return { engine: 'postgres', host, port, database: row.db_name, user: row.db_user, password, url };
  }

  /** The clear password; null when none is stored or it was sealed under another service secret. */
  private unseal(sealed: string | null): string | null {
    if (sealed === null) return null;
    try {
      return this.deps.secrets.decrypt(SECRET_PURPOSE, sealed);
    } catch (error) {
      this.deps.logger.warn({ err: error }, 'a coder database password could not be unsealed (was the service secret changed?)');
      return null;
    }
  }

  private view(row: Row) {
    return {
      name: row.name,
      status: row.status,
      project_id: row.project_id,
      database: this.databaseView(row),
      created_at: this.iso(Number(row.created_at)),
      last_opened_at: this.iso(Number(row.last_opened_at)),
    };
  }

  async list(customerId: number) {
    const { db } = this.deps.storage;
    const rows = await db
      .selectFrom('desktop_coder_projects')
      .selectAll()
      .where('customer_id', '=', customerId)
      .orderBy('created_at')
      .orderBy('id')
      .execute();
    return { data: rows.map((row) => this.view(row)), slots: await this.slotsIn(db, customerId) };
  }

  /** Creates the named project (201) or, when the customer has one of that name, resumes it (200). */
  async createOrResume(customerId: number, rawName: string): Promise<{ status: 201 | 200; body: unknown }> {
    const name = checkName(rawName);
    const nameKey = name.toLowerCase();
    const { storage, clock } = this.deps;
    const claim = await storage.db.transaction().execute(async (trx): Promise<{ resumed: Row } | { claimedId: number }> => {
      await storage.lockInTransaction(trx, LOCK_SCOPE, customerId);
      const now = clock.nowMs();
      const existing = await trx
        .selectFrom('desktop_coder_projects')
        .selectAll()
        .where('customer_id', '=', customerId)
        .where('name_key', '=', nameKey)
        .executeTakeFirst();
      if (existing) {
        if (existing.status !== 'active')
          throw new AppError('CONFLICT', `This project is being ${existing.status === 'creating' ? 'created' : 'deleted'}`, {
            details: { status: existing.status },
            retryAfterSeconds: 1,
          });
        await trx.updateTable('desktop_coder_projects').set({ last_opened_at: now }).where('id', '=', existing.id).execute();
        return { resumed: { ...existing, last_opened_at: now } };
      }
      const slots = await this.slotsIn(trx, customerId);
      if (slots.available <= 0) {
        throw new AppError(
          'CONFLICT',
          'Every coder project slot is in use: delete a project or buy a slot (POST /api/v1/desktop/coder/projects/purchase-slot)',
          { details: { slots } },
        );
      }
      const inserted = await trx
        .insertInto('desktop_coder_projects')
        .values({
          customer_id: customerId,
          name,
          name_key: nameKey,
          status: 'creating',
          project_id: null,
          db_engine: null,
          db_name: null,
          db_user: null,
          db_password_sealed: null,
          db_host: null,
          db_port: null,
          db_path: null,
          created_at: now,
          updated_at: now,
          last_opened_at: now,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      return { claimedId: Number(inserted.id) };
    });
    if ('resumed' in claim) return { status: 200, body: { project: this.view(claim.resumed), created: false } };
    const row = await this.provision(customerId, name, claim.claimedId);
    return { status: 201, body: { project: this.view(row), created: true, slots: await this.slotsIn(storage.db, customerId) } };
  }

  private async provision(customerId: number, name: string, id: number): Promise<Row> {
    const { storage, clock, projects, engines, secrets } = this.deps;
    const update = (values: Partial<Omit<Row, 'id'>>) =>
      storage.db
        .updateTable('desktop_coder_projects')
        .set({ ...values, updated_at: clock.nowMs() })
        .where('id', '=', id)
        .execute();
    let project: Project | undefined;
    let database: ProvisionedDatabase | undefined;
    try {
      project = await projects.create(customerId, `coder: ${name}`);
      await update({ project_id: project.id });
      database = await engines.forNew.create({ customerId, workspaceDir: project.workspaceDir }).catch((error: unknown) => {
        throw databaseUnavailable(error);
      });
      await update({
        status: 'active',
        db_engine: database.engine,
        db_name: database.name,
        db_user: database.user,
        db_password_sealed: database.password === null ? null : secrets.encrypt(SECRET_PURPOSE, database.password),
        db_host: database.host,
        db_port: database.port,
        db_path: database.path,
      });
    } catch (error) {
      // Nothing of a failed create may linger: its database, its workspace and the slot it claimed.
      if (database)
        await engines.forNew
          .drop(database)
          .catch((cause) => this.deps.logger.error({ err: cause }, 'dropping the database of a failed coder project failed'));
      if (project)
        await projects
          .remove(project)
          .catch((cause) => this.deps.logger.error({ err: cause }, 'removing the workspace of a failed coder project failed'));
      await storage.db.deleteFrom('desktop_coder_projects').where('id', '=', id).execute();
      throw error;
    }
    return storage.db.selectFrom('desktop_coder_projects').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  /** Drops the database (and its role) and removes the workspace. Another customer's name is a 404. */
  async remove(customerId: number, rawName: string): Promise<void> {
    if (!CODER_NAME_PATTERN.test(rawName)) throw notFound('Coder project');
    const { storage, clock } = this.deps;
    const row = await storage.db.transaction().execute(async (trx) => {
      await storage.lockInTransaction(trx, LOCK_SCOPE, customerId);
      const found = await trx
        .selectFrom('desktop_coder_projects')
        .selectAll()
        .where('customer_id', '=', customerId)
        .where('name_key', '=', rawName.toLowerCase())
        .executeTakeFirst();
      if (!found) throw notFound('Coder project');
      const now = clock.nowMs();
      if (found.status !== 'active' && Number(found.updated_at) > now - STALE_MS) {
        throw new AppError('CONFLICT', `This project is being ${found.status === 'creating' ? 'created' : 'deleted'}`, {
          details: { status: found.status },
          retryAfterSeconds: 1,
        });
      }
      if (found.project_id !== null && this.deps.projectBusy(customerId, found.project_id)) {
        throw new AppError('CONFLICT', 'A turn is running in this project; interrupt it first', {
          details: { project_id: found.project_id },
        });
      }
      if (found.project_id !== null && this.deps.agentBusy(customerId)) {
        throw new AppError(
          'CONFLICT',
          "A turn is running in another project of this account; deleting a project stops the account's agent and every process it left running, so wait for that turn to end or interrupt it first",
          { retryAfterSeconds: 5 },
        );
      }
      await trx.updateTable('desktop_coder_projects').set({ status: 'deleting', updated_at: now }).where('id', '=', found.id).execute();
      return found;
    });
    try {
      await this.dropDatabase(row);
      if (row.project_id !== null) {
        // Background processes an earlier turn left behind end with the app-server, before the tree is touched.
        await this.deps.stopAgent(customerId);
        await this.removeProject(row.project_id);
      }
    } catch (error) {
      // A later DELETE may finish the job at once (every step is safe to repeat).
      await storage.db.updateTable('desktop_coder_projects').set({ updated_at: 0 }).where('id', '=', row.id).execute();
      throw error;
    }
    await storage.db.deleteFrom('desktop_coder_projects').where('id', '=', row.id).execute();
  }

  private async dropDatabase(row: Row): Promise<void> {
    if (row.db_engine === null) return;
    const engine = this.deps.engines.byName[row.db_engine as DatabaseEngineName];
    if (!engine) throw new AppError('NOT_READY', `The ${row.db_engine} engine of this project's database is not configured`);
    await engine.drop({ name: row.db_name, user: row.db_user, path: row.db_path }).catch((error: unknown) => {
      throw databaseUnavailable(error);
    });
  }

  private async removeProject(projectId: string): Promise<void> {
    const project = await this.deps.storage.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    if (!project) return;
    await this.deps.projects.remove({
      id: project.id,
      customerId: Number(project.customer_id),
      name: project.name,
      workspaceDir: project.workspace_dir,
      createdAt: Number(project.created_at),
    });
  }

  /** One extra slot paid from the token wallet, once per Idempotency-Key; short credit → 402, nothing changed. */
  async purchaseSlot(customerId: number, idempotencyKey: string) {
    const { storage, clock, limits, wallet } = this.deps;
    return this.idempotency.run(
      `desktop-coder-slot:${customerId}`,
      idempotencyKey,
      requestHash('desktop.coder.purchase-slot', {}),
      async (trx) => {
        await storage.lockInTransaction(trx, LOCK_SCOPE, customerId);
        const before = await this.slotsIn(trx, customerId);
        if (limits.freeSlots + before.purchased >= limits.maxSlots) {
          throw new AppError('CONFLICT', `At most ${limits.maxSlots} coder project slots per customer`, { details: { slots: before } });
        }
        const transferId =
          limits.slotPriceMicros > 0
            ? await wallet.creditIn(trx, {
                customerId,
                wallet: 'token',
                amountMicros: -limits.slotPriceMicros,
                system: 'revenue',
                kind: 'coder_slot_purchase',
                memo: 'desktop coder project slot',
                reference: `idempotency:${idempotencyKey}`,
              })
            : 'free';
        const now = clock.nowMs();
        const purchase = await trx
          .insertInto('desktop_coder_slot_purchases')
          .values({
            customer_id: customerId,
            price_micros: limits.slotPriceMicros,
            transfer_id: transferId,
            idempotency_key: idempotencyKey,
            created_at: now,
          })
          .returning('id')
          .executeTakeFirstOrThrow();
        const slots = await this.slotsIn(trx, customerId);
        return {
          status: 200,
          body: { purchase: { id: Number(purchase.id), paid: moneyJson(limits.slotPriceMicros), created_at: this.iso(now) }, slots },
        };
      },
    );
  }
}

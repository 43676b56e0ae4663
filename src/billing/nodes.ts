/**
 * The processes that place holds. Each node registers with its host name and pid and beats a heartbeat; the
 * open holds of a node that is gone (its pid no longer runs on this host, or its heartbeat stopped) were left
 * by a crash and are released. Holds of live nodes, even other processes sharing the database, are never
 * touched, so a second process or a CLI command starting up cannot release holds still in flight.
 */
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Clock } from '../kernel/clock.js';
import type { Database } from '../storage/schema.js';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export class NodeRegistry {
  private readonly hostname = os.hostname();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    readonly nodeId: string,
    /** A node whose heartbeat is older than this is gone. */
    private readonly staleAfterMs: number,
  ) {}

  async register(): Promise<void> {
    const nowMs = this.clock.nowMs();
    await this.db
      .insertInto('billing_nodes')
      .values({ node_id: this.nodeId, hostname: this.hostname, pid: process.pid, started_at: nowMs, heartbeat_at: nowMs })
      .onConflict((conflict) => conflict.column('node_id').doUpdateSet({ heartbeat_at: nowMs }))
      .execute();
  }

  async heartbeat(): Promise<void> {
    const beat = await this.db
      .updateTable('billing_nodes')
      .set({ heartbeat_at: this.clock.nowMs() })
      .where('node_id', '=', this.nodeId)
      .executeTakeFirst();
    // Judged gone by another process (a pause longer than the stale limit) and forgotten while still running:
    // register again, or its holds would count as nobody's and be released under its calls.
    if (Number(beat.numUpdatedRows) === 0) await this.register();
  }

  async unregister(): Promise<void> {
    await this.db.deleteFrom('billing_nodes').where('node_id', '=', this.nodeId).execute();
  }

  /** Nodes that are gone: dead pid on this host, or a heartbeat older than the stale limit. */
  async goneNodes(): Promise<string[]> {
    const rows = await this.db.selectFrom('billing_nodes').selectAll().where('node_id', '!=', this.nodeId).execute();
    const nowMs = this.clock.nowMs();
    return rows
      .filter((row) => (row.hostname === this.hostname && !processAlive(row.pid)) || row.heartbeat_at < nowMs - this.staleAfterMs)
      .map((row) => row.node_id);
  }

  async forget(nodeIds: string[]): Promise<void> {
    if (nodeIds.length > 0) await this.db.deleteFrom('billing_nodes').where('node_id', 'in', nodeIds).execute();
  }
}

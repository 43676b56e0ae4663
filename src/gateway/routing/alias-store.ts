/** Persists runtime alias destinations (operator changes) so they survive a restart and reach every node. */
import type { Clock } from '../../kernel/clock.js';
import type { Storage } from '../../storage/database.js';

export class AliasStore {
  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
  ) {}

  async load(): Promise<Map<string, string>> {
    const rows = await this.storage.db.selectFrom('gateway_aliases').select(['alias', 'model_id']).execute();
    return new Map(rows.map((row) => [row.alias, row.model_id]));
  }

  async save(alias: string, modelId: string): Promise<number> {
    const updatedAt = this.clock.nowMs();
    await this.storage.db
      .insertInto('gateway_aliases')
      .values({ alias, model_id: modelId, updated_at: updatedAt })
      .onConflict((conflict) => conflict.column('alias').doUpdateSet({ model_id: modelId, updated_at: updatedAt }))
      .execute();
    return updatedAt;
  }
}

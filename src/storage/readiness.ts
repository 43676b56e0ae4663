/** Whether the database can serve: it answers, and every migration this build knows is applied (readiness checks). */
import type { DialectName, Storage } from './database.js';
import { pendingMigrations } from './migrate.js';

export interface DatabaseReadiness {
  readonly dialect: DialectName;
  /** Resolves when the database answers a query; rejects otherwise. */
  ping(): Promise<void>;
  /** Names of the migrations this build knows that the database lacks. */
  pendingMigrations(): Promise<string[]>;
}

export function databaseReadiness(storage: Storage): DatabaseReadiness {
  return {
    dialect: storage.dialect,
    async ping() {
      await storage.db.selectFrom('customers').select('id').limit(1).execute();
    },
    pendingMigrations: () => pendingMigrations(storage.db),
  };
}

/** Row types of the desktop coder tables (migration 0016). Timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

/** `creating` holds its slot while the workspace and database are made; `deleting` while they are removed. */
export type CoderProjectStatus = 'creating' | 'active' | 'deleting';

export interface DesktopCoderProjectsTable {
  id: Generated<number>;
  customer_id: number;
  /** As the customer typed it; `name_key` (lower case) is what is unique per customer. */
  name: string;
  name_key: string;
  status: CoderProjectStatus;
  /** The managed agent project (`prj_…`), once created. */
  project_id: string | null;
  /** `postgres` or `sqlite`, once the database exists. */
  db_engine: string | null;
  /** PostgreSQL database name (also its role's name); derived, never user input. Unique across customers. */
  db_name: string | null;
  db_user: string | null;
  /** The role's password, AES-256-GCM sealed under the service secret. */
  db_password_sealed: string | null;
  db_host: string | null;
  db_port: number | null;
  /** SQLite database file, inside the project's workspace. */
  db_path: string | null;
  created_at: number;
  updated_at: number;
  last_opened_at: number;
}

export interface DesktopCoderSlotPurchasesTable {
  id: Generated<number>;
  customer_id: number;
  price_micros: number;
  /** The ledger transfer that paid for it. */
  transfer_id: string;
  idempotency_key: string;
  created_at: number;
}

export interface DesktopCoderTables {
  desktop_coder_projects: DesktopCoderProjectsTable;
  desktop_coder_slot_purchases: DesktopCoderSlotPurchasesTable;
}

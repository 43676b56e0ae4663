/** Row types of the gateway tables. Timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

/** The runtime destination of an alias (`power-ai`), set by an operator; overrides the config file's value. */
export interface GatewayAliasesTable {
  alias: string;
  model_id: string;
  updated_at: number;
}

/** What a model call went on without (only calls that dropped something have a row). */
export interface CallNotesTable {
  id: Generated<number>;
  customer_id: number;
  request_id: string;
  /** JSON array of hosted tool names (`["web_search"]`). */
  dropped_tools: string;
  /** JSON array of request field names. */
  dropped_fields: string;
  created_at: number;
}

export interface GatewayTables {
  gateway_aliases: GatewayAliasesTable;
  call_notes: CallNotesTable;
}

/** Row types of the gateway tables. Timestamps are epoch milliseconds. */

/** The runtime destination of an alias (`power-ai`), set by an operator; overrides the config file's value. */
export interface GatewayAliasesTable {
  alias: string;
  model_id: string;
  updated_at: number;
}

export interface GatewayTables {
  gateway_aliases: GatewayAliasesTable;
}

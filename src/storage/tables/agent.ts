/** Row types of the agent tables. Timestamps are epoch milliseconds. */

export interface AgentProjectThreadsTable {
  project_id: string;
  customer_id: number;
  thread_id: string;
  created_at: number;
  updated_at: number;
}

export type ApprovalStatus = 'pending' | 'resolved' | 'cancelled' | 'expired' | 'lost';

export interface AgentApprovalsTable {
  /** Our own request id (the app-server's ids restart at 0 with every process). */
  id: string;
  project_id: string;
  customer_id: number;
  thread_id: string;
  turn_id: string;
  item_id: string;
  /** `commandExecution` or `fileChange`. */
  kind: string;
  /** The app-server's JSON-RPC id of the request (JSON text). */
  server_request_id: string;
  params_json: string;
  status: ApprovalStatus;
  /** The decision sent to the app-server (JSON text), when one was. */
  decision: string | null;
  created_at: number;
  expires_at: number;
  finished_at: number | null;
}

export interface AgentTurnRequestsTable {
  project_id: string;
  idempotency_key: string;
  /** Hash of the turn request, so a reused key with a different request is refused. */
  request_hash: string;
  response_json: string;
  created_at: number;
}

export interface AgentRuntimeKeysTable {
  customer_id: number;
  key_id: number;
  created_at: number;
  /** The key's plaintext, sealed with the server secret, so the next app-server start reuses it. */
  key_sealed: string | null;
}

export interface AgentTables {
  agent_project_threads: AgentProjectThreadsTable;
  agent_approvals: AgentApprovalsTable;
  agent_turn_requests: AgentTurnRequestsTable;
  agent_runtime_keys: AgentRuntimeKeysTable;
}

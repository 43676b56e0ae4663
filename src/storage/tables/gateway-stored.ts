/**
 * Row types of the gateway's stored objects: chat completions kept with `store: true`, responses kept for
 * retrieval and background polling, their captured input items, and completion metadata for list filters.
 * Every row carries its owner scope (the bearer's key) and an expiry for the retention purge.
 */
import type { Generated } from 'kysely';

export interface GatewayStoredCompletionsTable {
  /** Insertion order: the paging cursor and the tie-breaker between equal creation times. */
  id: Generated<number>;
  completion_id: string;
  /** `key:<api key id>` or `operator:static`. */
  owner: string;
  model: string;
  /** The ChatCompletion object as returned to the client (JSON). */
  completion_json: string;
  /** The completion's metadata (JSON object); mirrored in gateway_stored_metadata for filtering. */
  metadata_json: string;
  created_at: number;
  expires_at: number;
}

export interface GatewayStoredResponsesTable {
  id: Generated<number>;
  response_id: string;
  owner: string;
  model: string;
  /** queued | in_progress | completed | failed | cancelled | incomplete */
  status: string;
  /** 0/1: created with `background: true`. */
  background: number;
  /** The Response object as last known (JSON). */
  response_json: string;
  /** The create request as received (JSON), needed to run a background response and to compact it. */
  request_json: string;
  created_at: number;
  updated_at: number;
  expires_at: number;
}

/** Ordered items belonging to a stored object: a completion's request messages or a response's input items. */
export interface GatewayStoredItemsTable {
  id: Generated<number>;
  object_id: string;
  position: number;
  item_id: string;
  item_json: string;
}

export interface GatewayStoredMetadataTable {
  id: Generated<number>;
  object_id: string;
  key: string;
  value: string;
}

export interface GatewayStoredTables {
  gateway_stored_completions: GatewayStoredCompletionsTable;
  gateway_stored_responses: GatewayStoredResponsesTable;
  gateway_stored_items: GatewayStoredItemsTable;
  gateway_stored_metadata: GatewayStoredMetadataTable;
}

/** Row types of the object-workspace and chat-bot tables (migration 0018). Timestamps are epoch milliseconds. */

export interface ObjectWorkspacesTable {
  customer_id: number;
  created_at: number;
}

export interface ObjectWorkspaceProjectsTable {
  /** `owp_` + 20 base62 characters; also the project's folder name. */
  project_id: string;
  customer_id: number;
  name: string;
  /** Lower-cased name: unique per customer. */
  name_key: string;
  /** The free-form creation body. */
  body_json: string;
  created_at: number;
}

export interface ObjectWorkspaceRepositoriesTable {
  customer_id: number;
  name: string;
  source_url: string;
  commit_ref: string;
  format: string;
  files: number;
  bytes: number;
  stored_at: number;
}

export interface ChatbotLinksTable {
  chat_id: string;
  customer_id: number;
  linked_at: number;
}

export interface ChatbotLinkStatesTable {
  /** Keyed hash of the OAuth `state`; the state itself is never stored. */
  state_hash: string;
  chat_id: string;
  nonce_enc: string;
  code_verifier_enc: string;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

export interface ChatbotUpdatesTable {
  update_id: number;
  received_at: number;
}

export interface ObjectWorkspaceChatbotTables {
  object_workspaces: ObjectWorkspacesTable;
  object_workspace_projects: ObjectWorkspaceProjectsTable;
  object_workspace_repositories: ObjectWorkspaceRepositoriesTable;
  chatbot_links: ChatbotLinksTable;
  chatbot_link_codes: ChatbotLinkCodesTable;
  chatbot_link_states: ChatbotLinkStatesTable;
  chatbot_updates: ChatbotUpdatesTable;
}

/** A one-time code from the dashboard that links a chat to the account (`/link <code>`), stored hashed. */
export interface ChatbotLinkCodesTable {
  code_hash: string;
  customer_id: number;
  expires_at: number;
  used_at: number | null;
  created_at: number;
}

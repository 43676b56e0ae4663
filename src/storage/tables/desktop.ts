/** Row types of the desktop tables (migration 0014). Timestamps are epoch milliseconds. */
import type { Generated } from 'kysely';

export interface DesktopDocumentsTable {
  customer_id: number;
  /** `coding-session` or `assistant-sync`. */
  kind: string;
  /** Starts at 1 with the first write; each accepted PUT adds one. */
  version: number;
  body_json: string;
  size_bytes: number;
  updated_at: number;
}

export interface DesktopBugReportsTable {
  id: Generated<number>;
  customer_id: number;
  text: string;
  app_version: string;
  os: string;
  log_excerpt: string | null;
  created_at: number;
}

export interface DesktopPresenceTable {
  customer_id: number;
  app_version: string | null;
  os: string | null;
  first_seen_at: number;
  last_seen_at: number;
}

export interface DesktopPushMessagesTable {
  id: Generated<number>;
  message_key: string;
  /** Null: every customer sees it. */
  customer_id: number | null;
  title: string;
  body: string;
  level: string;
  created_at: number;
  expires_at: number | null;
}

export interface DesktopPushDismissalsTable {
  message_id: number;
  customer_id: number;
  dismissed_at: number;
}

export interface ShoutboxProfilesTable {
  customer_id: number;
  username: string;
  /** Lower-cased username: uniqueness ignores case. */
  username_key: string;
  updated_at: number;
}

export interface ShoutboxMessagesTable {
  id: Generated<number>;
  customer_id: number;
  text: string;
  created_at: number;
}

export interface DesktopChatConversationsTable {
  id: Generated<number>;
  customer_id: number;
  title: string;
  model: string;
  system_prompt: string | null;
  created_at: number;
  updated_at: number;
}

export interface DesktopChatMessagesTable {
  id: Generated<number>;
  conversation_id: number;
  customer_id: number;
  /** `user` or `assistant`. */
  role: string;
  content: string;
  model: string | null;
  request_id: string | null;
  input_tokens: number | null;
  output_tokens: number | null;
  created_at: number;
}

/** One free daily message (migration 0017): `reserved` while its call runs, `used` once it ended. */
export interface DesktopChatFreeUsageTable {
  id: Generated<number>;
  customer_id: number;
  /** Start of the UTC day the message counts against (epoch ms). */
  day_start: number;
  request_id: string;
  status: string;
  input_tokens: number | null;
  output_tokens: number | null;
  created_at: number;
}

/** A research analysis stored with its reply message (migration 0017). */
export interface DesktopChatResearchTable {
  id: Generated<number>;
  message_id: number;
  conversation_id: number;
  customer_id: number;
  /** `pending`, `running`, `completed` or `failed`. */
  status: string;
  prompt: string;
  title: string | null;
  /** `[{heading, text}]` */
  sections_json: string;
  /** `[url]` in order of first citation. */
  sources_json: string;
  error: string | null;
  /** Model calls made so far (plan and sections). */
  calls: number;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
}

export interface DesktopTables {
  desktop_documents: DesktopDocumentsTable;
  desktop_bug_reports: DesktopBugReportsTable;
  desktop_presence: DesktopPresenceTable;
  desktop_push_messages: DesktopPushMessagesTable;
  desktop_push_dismissals: DesktopPushDismissalsTable;
  shoutbox_profiles: ShoutboxProfilesTable;
  shoutbox_messages: ShoutboxMessagesTable;
  desktop_chat_conversations: DesktopChatConversationsTable;
  desktop_chat_messages: DesktopChatMessagesTable;
  desktop_chat_free_usage: DesktopChatFreeUsageTable;
  desktop_chat_research: DesktopChatResearchTable;
}

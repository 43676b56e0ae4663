/**
 * The response contract of the customer's workspace: managed projects (`/api/v1/projects…`) and the agent's views
 * (status, permission profiles, skills), desktop chat and its shoutbox, the toolbox, the chat bot, the cash wallet
 * and the payment callbacks, Unlimited Coding, VIP, the marketplace, promotions and the public release metadata.
 *
 * Answers that are not JSON (event streams, file downloads) are documented under their media type and never
 * checked (the check reads JSON answers only); 204 and redirects carry no body.
 */
import { Type } from '@sinclair/typebox';
import { APPROVAL_DECISIONS } from '../../agent/approvals.js';
import { APPROVAL_POLICIES } from '../../agent/turn-rules.js';
import type { ResponseCatalog } from './catalog.js';
import { EventStream, Literals, Media, Money, NoContent, Nullable, Payment, Redirect, Timestamp } from './shapes.js';

// ---- shapes used by several routes ----------------------------------------------------------------------------

/** Money crosses JSON as integer micro-USD plus the formatted USD amount. */

const WebSearchMode = Literals('live', 'cached', 'disabled');
const ApprovalPolicy = Literals(...APPROVAL_POLICIES);
const SandboxMode = Literals('danger-full-access', 'workspace-write', 'read-only');

// ---- managed projects -----------------------------------------------------------------------------------------

const ProjectJson = Type.Object({ id: Type.String(), name: Nullable(Type.String()), created_at: Type.Integer() });

/** The app-server's thread status. */
const ThreadStatus = Type.Object({
  type: Literals('notLoaded', 'idle', 'systemError', 'active'),
  activeFlags: Type.Optional(Type.Array(Type.String())),
});

/** A turn as the app-server reports it (its items are the app-server's own). */
const AppServerTurn = Type.Object({
  id: Type.String(),
  status: Literals('completed', 'interrupted', 'failed', 'inProgress'),
  items: Type.Array(Type.Unknown()),
});

const ThreadJson = Type.Object({
  id: Type.String(),
  status: ThreadStatus,
  preview: Type.String(),
  name: Nullable(Type.String()),
  model_provider: Type.String(),
  created_at: Type.Integer({ description: 'Epoch milliseconds' }),
  updated_at: Type.Integer({ description: 'Epoch milliseconds' }),
  active_turn_id: Nullable(Type.String()),
  turns: Type.Optional(Type.Array(AppServerTurn, { description: 'Only when the turns were asked for' })),
});

const LatestThread = Type.Object({
  id: Type.String(),
  created_at: Type.Integer(),
  loaded: Type.Boolean({ description: 'Whether a running app-server has the thread loaded (preview and status come from it)' }),
  preview: Nullable(Type.String()),
  status: ThreadStatus,
  active_turn_id: Nullable(Type.String()),
});

const TurnDefaults = Type.Object({
  model: Type.String(),
  reasoning_effort: Type.String(),
  approval_policy: ApprovalPolicy,
  sandbox: SandboxMode,
  web_search: WebSearchMode,
});

const TurnStarted = Type.Object({ turn_id: Type.String(), thread_id: Type.String(), status: Type.String() });

const Approval = Type.Object({
  request_id: Type.String(),
  kind: Literals('commandExecution', 'fileChange'),
  status: Literals('pending', 'resolved', 'cancelled', 'expired', 'lost'),
  decision: Type.Unknown({ description: 'The decision sent to the app-server; null while pending' }),
  thread_id: Type.String(),
  turn_id: Type.String(),
  item_id: Type.String(),
  command: Type.Unknown(),
  cwd: Type.Unknown({ description: 'Workspace-relative' }),
  reason: Type.Unknown(),
  changes: Type.Unknown({ description: 'File changes of a file-change approval (workspace-relative paths)' }),
  available_decisions: Type.Unknown(),
  created_at: Type.Integer(),
  expires_at: Type.Integer(),
  finished_at: Nullable(Type.Integer()),
});

const TreeEntry = Type.Object({
  path: Type.String(),
  type: Literals('file', 'directory', 'symlink', 'other'),
  size_bytes: Type.Optional(Type.Integer({ description: 'Files only' })),
});

const FileWritten = Type.Object({ path: Type.String(), size_bytes: Type.Integer(), etag: Type.String(), created: Type.Boolean() });

const projectResponses: ResponseCatalog = {
  'DELETE /api/v1/projects/:projectId': { 204: NoContent },
  'GET /api/v1/projects/:projectId': {
    200: Type.Object({ ...ProjectJson.properties, latest_thread: Nullable(LatestThread), turn_defaults: TurnDefaults }),
  },
  'POST /api/v1/projects/:projectId/open': {
    200: Type.Object({
      project_id: Type.String(),
      thread: ThreadJson,
      resumed: Type.Boolean(),
      turn: Nullable(TurnStarted),
    }),
  },
  'GET /api/v1/projects/:projectId/state': {
    200: Type.Object({ project: ProjectJson, thread: Nullable(ThreadJson), pending_approvals: Type.Array(Approval) }),
  },
  'GET /api/v1/projects/:projectId/thread': { 200: Type.Object({ thread: Nullable(ThreadJson) }) },
  'POST /api/v1/projects/:projectId/turns': { 202: TurnStarted },
  'POST /api/v1/projects/:projectId/turns/:turnId/interrupt': {
    200: Type.Object({ turn_id: Type.String(), thread_id: Type.String(), interrupted: Type.Literal(true) }),
  },
  'GET /api/v1/projects/:projectId/turns/:turnId/changes': {
    200: Type.Object({
      turn_id: Type.String(),
      status: Type.String(),
      files: Type.Array(
        Type.Object({
          item_id: Type.String(),
          status: Type.String(),
          path: Type.String({ description: 'Workspace-relative' }),
          kind: Type.Object({ type: Type.String({ description: 'add, delete or update' }) }),
          diff: Type.String(),
        }),
      ),
    }),
  },
  'GET /api/v1/projects/:projectId/approvals': { 200: Type.Object({ data: Type.Array(Approval) }) },
  'POST /api/v1/projects/:projectId/approvals/:requestId/resolve': {
    200: Type.Object({ ...Approval.properties, decision_applied: Literals(...APPROVAL_DECISIONS) }),
  },
  'GET /api/v1/projects/:projectId/events': {
    200: EventStream('Project events: `id:` the sequence number, `event:` the type, `data:` JSON; reset and overflow frames'),
  },
  'GET /api/v1/projects/:projectId/files/tree': {
    200: Type.Object({ path: Type.String(), entries: Type.Array(TreeEntry), truncated: Type.Boolean() }),
  },
  'GET /api/v1/projects/:projectId/files/content': {
    200: Type.Object({
      path: Type.String(),
      encoding: Literals('utf8', 'base64'),
      content: Type.String(),
      size_bytes: Type.Integer(),
      etag: Type.String(),
    }),
  },
  'PUT /api/v1/projects/:projectId/files/content': { 200: FileWritten, 201: FileWritten },
  'DELETE /api/v1/projects/:projectId/files/content': { 204: NoContent },
  'GET /api/v1/projects/:projectId/files/download': {
    200: Media('application/octet-stream', 'The file as it is (attachment)', 'binary'),
  },
};

// ---- agent views ----------------------------------------------------------------------------------------------

const agentResponses: ResponseCatalog = {
  'GET /api/v1/agent/status': {
    200: Type.Object({
      defaults: Type.Object({
        model: Type.String(),
        web_search: WebSearchMode,
        reasoning_effort: Type.String(),
        approval_policy: ApprovalPolicy,
        sandbox: SandboxMode,
      }),
      runtime: Type.Object({
        app_server_version: Nullable(Type.String()),
        pinned_version: Type.String(),
        running_processes: Type.Integer(),
        approval_timeout_ms: Type.Integer(),
        idle_stop_ms: Type.Integer(),
      }),
      account: Nullable(
        Type.Object(
          {
            app_server_running: Type.Boolean(),
            pid: Nullable(Type.Integer()),
            loaded_threads: Type.Integer(),
            restarts: Type.Integer(),
            runtime_key: Nullable(
              Type.Object({ keyId: Type.Integer(), prefix: Type.String(), lastFour: Type.String(), createdAt: Type.Integer() }),
            ),
            app_server_account: Type.Unknown({ description: "The app-server's account/read answer, null when not running" }),
          },
          { description: 'null for an operator' },
        ),
      ),
    }),
  },
  'GET /api/v1/permissions': {
    200: Type.Object({
      data: Type.Array(
        Type.Object({
          id: Type.String(),
          description: Nullable(Type.String()),
          allowed: Type.Boolean(),
          sandbox_policy: Type.Unknown({ description: 'The legacy turn-level sandboxPolicy of the profile, null when it has none' }),
        }),
      ),
      default: Type.Object({ sandbox: SandboxMode, approval_policy: ApprovalPolicy }),
    }),
  },
  'GET /api/v1/skills': {
    200: Type.Object({
      data: Type.Array(Type.Object({ name: Type.String(), description: Type.String(), scope: Type.String(), enabled: Type.Boolean() })),
    }),
  },
};

// ---- toolbox ----------------------------------------------------------------------------------------------------

const Toolbox = Type.Object({
  settings: Type.Object(
    {
      webSearch: Type.Optional(WebSearchMode),
      reasoningEffort: Type.Optional(Type.String()),
      approvalPolicy: Type.Optional(ApprovalPolicy),
    },
    { description: 'What the customer chose' },
  ),
  effective: Type.Object(
    { webSearch: WebSearchMode, reasoningEffort: Type.String(), approvalPolicy: ApprovalPolicy },
    { description: 'What new turns run with' },
  ),
  allowed: Type.Object({ webSearch: Type.Array(WebSearchMode), approvalPolicy: Type.Array(ApprovalPolicy) }),
});

// ---- desktop chat (conversations, messages, free quota, shoutbox) ---------------------------------------------

const Conversation = Type.Object({
  id: Type.Integer(),
  title: Type.String(),
  model: Type.String(),
  system_prompt: Nullable(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Research = Type.Object({
  status: Literals('pending', 'running', 'completed', 'failed'),
  title: Nullable(Type.String()),
  sections: Type.Array(Type.String()),
  sources: Type.Array(Type.String()),
  source_checks: Type.Optional(Type.Array(Type.Object({ url: Type.String(), verified: Type.Boolean() }))),
  calls: Type.Integer(),
  error: Nullable(Type.String()),
  created_at: Timestamp,
  completed_at: Nullable(Timestamp),
});

const ChatMessage = Type.Object({
  id: Type.Integer(),
  role: Type.String({ description: 'user or assistant' }),
  content: Type.String(),
  model: Nullable(Type.String()),
  input_tokens: Nullable(Type.Integer()),
  output_tokens: Nullable(Type.Integer()),
  created_at: Timestamp,
  research: Nullable(Research),
});

const FreeQuota = Type.Object({
  daily_messages: Type.Integer(),
  used: Type.Integer(),
  left: Type.Integer(),
  resets_at: Timestamp,
  models: Type.Array(Type.String()),
});

const ShoutboxMessage = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  text: Type.String(),
  created_at: Timestamp,
  mine: Type.Boolean(),
});
const ShoutboxProfile = Type.Object({ username: Type.String() });

const desktopChatResponses: ResponseCatalog = {
  'GET /api/v1/desktop-chat/bootstrap': {
    200: Type.Object({
      conversations: Type.Array(Conversation),
      models: Type.Array(
        Type.Object({
          id: Type.String(),
          display_name: Type.String(),
          alias: Type.Boolean(),
          pricing: Nullable(Type.Object({})),
          free: Type.Boolean({ description: 'Covered by the free daily quota' }),
        }),
      ),
      default_model: Type.String(),
      free_quota: FreeQuota,
    }),
  },
  'GET /api/v1/desktop-chat/conversations': { 200: Type.Object({ data: Type.Array(Conversation) }) },
  'POST /api/v1/desktop-chat/conversations': { 201: Conversation },
  'DELETE /api/v1/desktop-chat/conversations/:conversation_id': { 204: NoContent },
  'GET /api/v1/desktop-chat/conversations/:conversation_id/messages': {
    200: Type.Object({ conversation: Conversation, data: Type.Array(ChatMessage) }),
  },
  'POST /api/v1/desktop-chat/conversations/:conversation_id/messages': {
    200: EventStream('stream: true — events delta {text}, done {messages, free}, error {code, message}'),
    201: Type.Object({
      messages: Type.Array(ChatMessage, { description: 'The prompt and the reply' }),
      free: Type.Boolean(),
      free_quota: FreeQuota,
    }),
    202: Type.Object({ messages: Type.Array(ChatMessage, { description: 'mode research: the prompt and the pending reply' }) }),
  },
  'GET /api/v1/desktop-chat/shoutbox/bootstrap': {
    200: Type.Object({
      profile: Nullable(ShoutboxProfile),
      messages: Type.Array(ShoutboxMessage),
      limits: Type.Object({ max_message_chars: Type.Integer(), messages_per_minute: Type.Integer(), username_pattern: Type.String() }),
    }),
  },
  'GET /api/v1/desktop-chat/shoutbox/messages': { 200: Type.Object({ data: Type.Array(ShoutboxMessage) }) },
  'POST /api/v1/desktop-chat/shoutbox/messages': { 201: ShoutboxMessage },
  'GET /api/v1/desktop-chat/shoutbox/events': {
    200: EventStream('event message {id, username, text, created_at, mine}, `id:` the message id; heartbeat comments'),
  },
  'POST /api/v1/desktop-chat/shoutbox/profile': { 200: ShoutboxProfile },
};

// ---- chat bot ---------------------------------------------------------------------------------------------------

const chatbotResponses: ResponseCatalog = {
  'POST /api/v1/chatbot/link-code': {
    201: Type.Object({ code: Type.String(), command: Type.String({ description: '/link <code>' }), expires_at: Timestamp }),
  },
  'POST /api/v1/chatbot/webhook': {
    200: Type.Union([
      Type.Object(
        { method: Type.Literal('sendMessage'), chat_id: Type.String(), text: Type.String() },
        { description: 'No bot token configured: the answer, for the Bot API to send' },
      ),
      Type.Object(
        { ok: Type.Literal(true), duplicate: Type.Boolean(), delivered: Type.Boolean() },
        { description: 'Answered through the Bot API, nothing to answer, or a redelivered update' },
      ),
    ]),
  },
  'GET /api/v1/chatbot/idp/start': { 302: Redirect('Redirect to the identity provider (Location)') },
  'GET /api/v1/chatbot/idp/callback': { 200: Type.Object({ linked: Type.Literal(true), chat_id: Type.String() }) },
};

// ---- cash wallet, payment callbacks, Unlimited Coding, VIP, marketplace -----------------------------------------

const CryptoOrder = Type.Object({
  order_id: Type.String(),
  ...Payment.properties,
  pay_currency: Nullable(Type.String()),
  network: Nullable(Type.String()),
  invoice_url: Nullable(Type.String()),
  processor_status: Nullable(Type.String()),
  discount_code: Nullable(Type.String()),
  pay_amount: Nullable(Type.String()),
  actually_paid: Nullable(Type.String()),
  receipt_available: Type.Boolean(),
});

const walletResponses: ResponseCatalog = {
  'POST /api/v1/cash-wallet/card/checkout': {
    201: Type.Object({ session_id: Type.String(), checkout_url: Type.String(), payment: Payment }),
  },
  'POST /api/v1/cash-wallet/card/confirm': {
    200: Type.Object({ credited: Type.Boolean({ description: 'Whether this call credited the wallet' }), payment: Payment }),
  },
  'POST /api/v1/cash-wallet/crypto/checkout': { 201: CryptoOrder },
  'POST /api/v1/cash-wallet/token-purchase': { 200: Type.Object({ purchase: Payment, paid: Money, credited: Money }) },
  'POST /api/v1/cash-wallet/unlimited-purchase': {
    200: Type.Object({ purchase: Payment, plan: Type.String(), paid: Money, starts_at: Timestamp, ends_at: Timestamp }),
  },
  'POST /api/v1/card/webhook': {
    200: Type.Object({ received: Type.Literal(true), event_id: Type.String(), duplicate: Type.Boolean() }),
  },
  'POST /api/v1/crypto/ipn': { 200: Type.Object({ received: Type.Literal(true), duplicate: Type.Boolean() }) },
  'GET /api/v1/unlimited-coding/plans': {
    200: Type.Object({
      plans: Type.Array(
        Type.Object({
          id: Type.String(),
          name: Type.String(),
          description: Nullable(Type.String()),
          price: Money,
          duration_days: Type.Integer(),
          models: Nullable(Type.Array(Type.String(), { description: 'null: every model' })),
          surfaces: Type.Array(Literals('gateway', 'projects')),
          fair_use: Type.Object({ requests_per_hour: Nullable(Type.Integer()), tokens_per_day: Nullable(Type.Integer()) }),
          active: Type.Boolean(),
        }),
      ),
      active: Nullable(Type.Object({ plan: Type.String(), ends_at: Timestamp })),
    }),
  },
  'GET /api/v1/vip': {
    200: Type.Object({
      vip: Nullable(Type.Boolean({ description: 'null without a bearer' })),
      servers: Type.Array(Type.String()),
      models: Type.Array(Type.String()),
      description: Type.String(),
    }),
  },
  'POST /api/v1/marketplace/register': {
    201: Type.Object({
      customer_id: Type.Integer(),
      email: Type.String(),
      username: Type.String(),
      system_token: Type.String({ description: 'Shown once' }),
      credit: Money,
      note: Type.String(),
    }),
  },
};

// ---- promotions and the ad network --------------------------------------------------------------------------

const promotionResponses: ResponseCatalog = {
  'GET /api/v1/daily-checkin': {
    200: Type.Object({
      enabled: Type.Boolean(),
      day: Type.String({ description: 'UTC day, YYYY-MM-DD' }),
      claimed_today: Type.Boolean(),
      streak: Type.Integer(),
      next_reward: Money,
      next_claim_at: Timestamp,
      rewards: Type.Array(Type.Object({ day: Type.Integer(), reward: Money })),
    }),
  },
  'POST /api/v1/daily-checkin/claim': {
    200: Type.Object({ claimed: Type.Literal(true), day: Type.String(), streak: Type.Integer(), reward: Money }),
  },
  'GET /api/v1/spin-wheel': {
    200: Type.Object({
      enabled: Type.Boolean(),
      entries_left: Type.Integer({ minimum: 0, maximum: 1 }),
      result: Nullable(
        Type.Object({ prize: Type.Optional(Type.String()), label: Type.Optional(Type.String()), amount: Money, spun_at: Timestamp }),
      ),
      prizes: Type.Array(Type.Object({ id: Type.String(), label: Type.String(), amount: Money, probability: Type.Number() })),
    }),
  },
  'POST /api/v1/spin-wheel/spin': {
    200: Type.Object({
      prize: Type.Object({ id: Type.String(), label: Type.String() }),
      amount: Money,
      entries_left: Type.Literal(0),
    }),
  },
  'GET /api/v1/share-credit': {
    200: Type.Object({
      enabled: Type.Boolean(),
      amount: Money,
      claimed: Type.Boolean(),
      claimed_at: Nullable(Timestamp),
      share_link: Type.String(),
      visits_by_others: Type.Integer(),
      claimable: Type.Boolean(),
      requirement: Type.String(),
    }),
  },
  'POST /api/v1/share-credit/claim': { 200: Type.Object({ claimed: Type.Literal(true), amount: Money }) },
  'GET /api/v1/referral': {
    200: Type.Object({
      referral_code: Type.String(),
      referral_link: Type.String(),
      club_level: Nullable(Type.String()),
      levels: Type.Array(Type.Object({ name: Type.String(), min_paid_referrals: Type.Integer() })),
      referred: Type.Object({ total: Type.Integer(), paid: Type.Integer() }),
      share_percent: Type.Number(),
      earnings: Type.Object({ total: Money, clawed_back: Money, net: Money }),
      cash_wallet: Type.Object({ balance: Money, available: Money }),
    }),
  },
  'GET /api/v1/raffle': {
    200: Type.Object({
      enabled: Type.Boolean(),
      current: Type.Object({
        raffle_id: Type.Integer(),
        opens_at: Timestamp,
        draws_at: Timestamp,
        prize_micros: Type.Integer(),
        winners: Type.Integer(),
        seed_hash: Type.String(),
        your_entries: Type.Integer(),
        your_entrant_id: Type.String(),
        total_entries: Type.Integer(),
        entrants: Type.Integer(),
      }),
      how_to_enter: Type.Object({ per_daily_checkin: Type.Integer(), per_paid_top_up: Type.Integer() }),
      past_draws: Type.Array(
        Type.Object({
          raffle_id: Type.Integer(),
          drew_at: Timestamp,
          prize_micros: Type.Integer(),
          seed_hash: Type.String(),
          seed: Type.String(),
          entries: Type.Array(Type.Object({ entrant: Type.String(), entries: Type.Integer() })),
          winners: Type.Array(Type.String()),
          you_won: Type.Boolean(),
        }),
      ),
      fairness: Type.String(),
    }),
  },
  'POST /api/v1/adnetwork/conversion': {
    200: Type.Object({ accepted: Type.Literal(true), duplicate: Type.Literal(true) }, { description: 'An event_id already forwarded' }),
    202: Type.Object({ accepted: Type.Literal(true), duplicate: Type.Literal(false) }, { description: 'Forwarded' }),
  },
};

// ---- release metadata (public) ------------------------------------------------------------------------------

const ReleaseStatus = Type.Object({
  product: Literals('cli', 'launcher-a', 'launcher-b'),
  version: Type.String(),
  latest_version: Type.String(),
  minimum_version: Nullable(Type.String()),
  download_url: Nullable(Type.String()),
  notes: Nullable(Type.String()),
  published_at: Nullable(Type.String()),
  current_version: Nullable(Type.String({ description: 'The version the caller sent' })),
  update_available: Nullable(Type.Boolean({ description: 'null when the caller sent no current version' })),
  update_required: Nullable(Type.Boolean()),
});

export const workspaceResponses: ResponseCatalog = {
  ...projectResponses,
  ...agentResponses,
  'GET /api/v1/toolbox': { 200: Toolbox },
  'POST /api/v1/toolbox': { 200: Toolbox },
  ...desktopChatResponses,
  ...chatbotResponses,
  ...walletResponses,
  ...promotionResponses,
  'GET /api/v1/cli/version': { 200: ReleaseStatus },
  'GET /api/v1/launcher-a/version': { 200: ReleaseStatus },
  'GET /api/v1/launcher-b/version': { 200: ReleaseStatus },
};

/**
 * Answers of the platform's machine surfaces: the model gateway (`/v1`, OpenAI and Anthropic wire shapes), the
 * direct app-server surface (`/api/threads`, `/api/turns`, `/api/rpc`, …), public status and share links, and the
 * desktop apps (`/api/v1/desktop*`, `/api/v1/assistant-desktop*`).
 *
 * The gateway passes a same-protocol answer through from the upstream as sent, so its schemas name only what the
 * protocol guarantees and leave every object open. Streamed answers (`text/event-stream`) are documented with
 * their media type and never checked.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import type { ResponseCatalog } from './catalog.js';
import { EventStream, Money, Nullable, Timestamp, Wallet } from './shapes.js';

// ---- shared pieces ---------------------------------------------------------------------------------------------

/** OpenAI's cursor-paged list (`object: "list"`, `first_id`, `last_id`, `has_more`). */
const CursorList = <T extends TSchema>(item: T) =>
  Type.Object({
    object: Type.Literal('list'),
    data: Type.Array(item),
    first_id: Nullable(Type.String()),
    last_id: Nullable(Type.String()),
    has_more: Type.Boolean(),
  });

// ---- model gateway (/v1) ---------------------------------------------------------------------------------------

const ModelDescriptor = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  created: Type.Integer(),
  owned_by: Type.String(),
  display_name: Type.String(),
  type: Type.Literal('model'),
  created_at: Type.String(),
  alias: Type.Boolean({ description: 'True for a service alias (such as `power-ai`) whose destination may change.' }),
  capabilities: Type.Object({
    tools: Type.Boolean(),
    images: Type.Boolean(),
    responses_api: Type.Boolean(),
    context_window: Type.Integer(),
    max_output_tokens: Type.Integer(),
    structured_output: Type.Boolean(),
    web_search: Type.Boolean(),
    embeddings: Type.Boolean(),
  }),
  pricing: Nullable(Type.Object({})),
});

const ChatCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('chat.completion'),
    created: Type.Number(),
    model: Type.String(),
    choices: Type.Array(
      Type.Object({
        index: Type.Integer(),
        message: Type.Object({ role: Type.String() }),
        finish_reason: Nullable(Type.String()),
      }),
    ),
    usage: Type.Optional(Nullable(Type.Object({}))),
  },
  { description: 'With `stream: true`: server-sent `chat.completion.chunk` events ending with `data: [DONE]`.' },
);

/** A stored chat completion: the completion as answered, with its metadata. */
const StoredChatCompletion = Type.Composite([
  ChatCompletion,
  Type.Object({ metadata: Nullable(Type.Record(Type.String(), Type.String())) }),
]);

const StoredChatMessage = Type.Object({ id: Type.String(), role: Type.String() });

const TextCompletion = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('text_completion'),
    created: Type.Number(),
    model: Type.String(),
    choices: Type.Array(Type.Object({ text: Type.String(), index: Type.Integer(), finish_reason: Nullable(Type.String()) })),
    usage: Type.Optional(Nullable(Type.Object({}))),
  },
  { description: 'With `stream: true`: server-sent `text_completion` chunks ending with `data: [DONE]`.' },
);

const ResponseObject = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('response'),
    status: Type.String({ description: 'queued, in_progress, completed, failed, incomplete or cancelled' }),
    model: Type.String(),
    output: Type.Array(Type.Object({ type: Type.String() })),
  },
  {
    description:
      'With `stream: true`: server-sent events (`response.created` … `response.completed`). `background: true` answers the queued response.',
  },
);

const ResponseCompaction = Type.Object({
  id: Type.String(),
  object: Type.Literal('response.compaction'),
  created_at: Type.Integer(),
  // The user messages kept are echoed as sent (a bare `{role, content}` has no `type`), then one `compaction` item.
  output: Type.Array(Type.Object({})),
  usage: Nullable(Type.Object({})),
});

const InputTokens = Type.Object({ object: Type.Literal('response.input_tokens'), input_tokens: Type.Integer({ minimum: 0 }) });

const Embeddings = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(
    Type.Object({
      index: Type.Integer(),
      embedding: Type.Union([Type.Array(Type.Number()), Type.String({ description: 'base64 (`encoding_format: "base64"`)' })]),
    }),
  ),
  model: Type.String(),
  usage: Type.Optional(Type.Object({})),
});

const AnthropicMessage = Type.Object(
  {
    id: Type.String(),
    type: Type.Literal('message'),
    role: Type.Literal('assistant'),
    content: Type.Array(Type.Object({ type: Type.String() })),
    model: Type.String(),
    stop_reason: Nullable(Type.String()),
    usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer() }),
  },
  { description: 'With `stream: true`: message_start, content_block_start/delta/stop, message_delta, message_stop events.' },
);

const gateway: ResponseCatalog = {
  'GET /v1/models': {
    200: Type.Object({
      object: Type.Literal('list'),
      data: Type.Array(ModelDescriptor),
      has_more: Type.Boolean(),
      first_id: Nullable(Type.String()),
      last_id: Nullable(Type.String()),
    }),
  },
  'GET /v1/models/*': { 200: ModelDescriptor },
  'POST /v1/chat/completions': { 200: ChatCompletion },
  'GET /v1/chat/completions': { 200: CursorList(StoredChatCompletion) },
  'GET /v1/chat/completions/:completion_id': { 200: StoredChatCompletion },
  'PATCH /v1/chat/completions/:completion_id': { 200: StoredChatCompletion },
  'POST /v1/chat/completions/:completion_id': { 200: StoredChatCompletion },
  'DELETE /v1/chat/completions/:completion_id': {
    200: Type.Object({ id: Type.String(), object: Type.Literal('chat.completion.deleted'), deleted: Type.Literal(true) }),
  },
  'GET /v1/chat/completions/:completion_id/messages': { 200: CursorList(StoredChatMessage) },
  'POST /v1/completions': { 200: TextCompletion },
  'POST /v1/responses': { 200: ResponseObject },
  'GET /v1/responses/:response_id': {
    200: Type.Object(ResponseObject.properties, {
      description: 'With `stream=true`: the stored response replayed as server-sent events.',
    }),
  },
  'DELETE /v1/responses/:response_id': {
    200: Type.Object({ id: Type.String(), object: Type.Literal('response'), deleted: Type.Literal(true) }),
  },
  'POST /v1/responses/:response_id/cancel': { 200: ResponseObject },
  'POST /v1/responses/:response_id/compact': { 200: ResponseCompaction },
  'POST /v1/responses/compact': { 200: ResponseCompaction },
  'POST /v1/responses/count_tokens': { 200: InputTokens },
  'POST /v1/responses/input_tokens': { 200: InputTokens },
  'GET /v1/responses/:response_id/input_items': { 200: CursorList(Type.Object({ id: Type.String(), type: Type.String() })) },
  'POST /v1/embeddings': { 200: Embeddings },
  'POST /v1/messages': { 200: AnthropicMessage },
  'POST /v1/messages/count_tokens': { 200: Type.Object({ input_tokens: Type.Integer({ minimum: 0 }) }) },
  'POST /v1/messages/*': {
    404: Type.Object(
      {
        type: Type.Literal('error'),
        error: Type.Object({ type: Type.Literal('not_found_error'), message: Type.String() }),
      },
      { description: 'Every subpath other than count_tokens: nothing is served or forwarded.' },
    ),
  },
};

// ---- direct app-server surface (/api/threads, /api/turns, /api/rpc, …) -----------------------------------------

const ThreadStatus = Type.Object({ type: Type.String({ description: 'notLoaded, idle, systemError or active' }) });

const DirectThread = Type.Object({
  id: Type.String(),
  status: ThreadStatus,
  preview: Type.String(),
  name: Nullable(Type.String()),
  model_provider: Type.String(),
  created_at: Type.Number({ description: 'Epoch milliseconds' }),
  updated_at: Type.Number({ description: 'Epoch milliseconds' }),
  active_turn_id: Nullable(Type.String()),
  cwd: Type.String({ description: 'Relative to your workspace root' }),
  forked_from_id: Nullable(Type.String()),
  turns: Type.Optional(Type.Array(Type.Object({ id: Type.String() }))),
});

/** What a thread start or resume reports: the thread and the settings it runs with. */
const ThreadSettings = Type.Object({
  thread: DirectThread,
  model: Type.String(),
  model_provider: Type.String(),
  cwd: Type.String(),
  approval_policy: Type.Unknown(),
  sandbox: Type.Unknown(),
  active_permission_profile: Type.Unknown(),
  reasoning_effort: Type.Unknown(),
});

const TurnStarted = Type.Object({ turn_id: Type.String(), thread_id: Type.String(), status: Type.String() });

const Approval = Type.Object({
  request_id: Type.String(),
  kind: Type.Union([Type.Literal('commandExecution'), Type.Literal('fileChange')]),
  status: Type.Union(['pending', 'resolved', 'cancelled', 'expired', 'lost'].map((status) => Type.Literal(status))),
  decision: Type.Unknown(),
  thread_id: Type.String(),
  turn_id: Type.String(),
  item_id: Type.String(),
  command: Type.Unknown(),
  cwd: Type.Unknown(),
  reason: Type.Unknown(),
  changes: Type.Unknown(),
  available_decisions: Type.Unknown(),
  created_at: Type.Number(),
  expires_at: Type.Number(),
  finished_at: Nullable(Type.Number()),
});

const AgentModel = Type.Object({
  id: Type.String(),
  display_name: Type.String(),
  type: Type.Union([Type.Literal('model'), Type.Literal('alias')]),
  hidden: Type.Boolean(),
  is_default: Type.Boolean(),
  default_reasoning_effort: Nullable(Type.String()),
  supported_reasoning_efforts: Type.Array(Type.String()),
  input_modalities: Type.Array(Type.String()),
  capabilities: Nullable(Type.Object({})),
  pricing: Nullable(Type.Object({})),
  agent: Type.Boolean({ description: 'Threads can use it' }),
  gateway: Type.Boolean({ description: 'Callable on /v1' }),
});

const RpcId = Nullable(Type.Union([Type.String(), Type.Number()]));

const direct: ResponseCatalog = {
  'GET /api/threads': {
    200: Type.Object({
      data: Type.Array(DirectThread),
      next_cursor: Nullable(Type.String()),
      backwards_cursor: Type.Optional(Nullable(Type.String())),
    }),
  },
  'POST /api/threads': { 201: ThreadSettings },
  'GET /api/threads/:thread_id': { 200: Type.Composite([DirectThread, Type.Object({ project_id: Nullable(Type.String()) })]) },
  'POST /api/threads/:thread_id/resume': { 200: ThreadSettings },
  'GET /api/threads/:thread_id/approvals': { 200: Type.Object({ data: Type.Array(Approval) }) },
  'POST /api/threads/:thread_id/approvals/:request_id/resolve': {
    200: Type.Composite([Approval, Type.Object({ decision_applied: Type.String() })]),
  },
  'POST /api/turns': { 202: TurnStarted },
  'POST /api/turns/:turn_id/interrupt': {
    200: Type.Object({ turn_id: Type.String(), thread_id: Type.String(), interrupted: Type.Literal(true) }),
  },
  'POST /api/projects/open': {
    200: Type.Composite([ThreadSettings, Type.Object({ resumed: Type.Boolean(), turn: Nullable(TurnStarted) })]),
  },
  'GET /api/models': { 200: Type.Object({ object: Type.Literal('list'), data: Type.Array(AgentModel) }) },
  'GET /api/core/releases/current': {
    200: Type.Object({
      app_server_version: Nullable(Type.String()),
      source: Type.String(),
      pinned_version: Type.String(),
      reference_cli_target: Type.String(),
      synced: Type.Boolean(),
      legacy_sandbox_policy_clients_max: Type.Unknown(),
    }),
  },
  'GET /api/events': {
    200: EventStream('Events of your direct threads (id: sequence number; event: app-server method or approval/*).'),
  },
  'POST /api/rpc': {
    200: Type.Union(
      [
        Type.Object({ jsonrpc: Type.Literal('2.0'), id: RpcId, result: Type.Unknown() }),
        Type.Object({
          jsonrpc: Type.Literal('2.0'),
          id: RpcId,
          error: Type.Object({ code: Type.Integer(), message: Type.String(), data: Type.Optional(Type.Unknown()) }),
        }),
      ],
      { description: 'A JSON-RPC 2.0 answer: the result, or an error object (refusals and app-server errors alike).' },
    ),
  },
  'GET /api/rpc/events': { 200: EventStream('Notifications of your passthrough session (the direct threads stream).') },
};

// ---- public status and share links -----------------------------------------------------------------------------

const publicRoutes: ResponseCatalog = {
  'GET /api/status/regions': {
    200: Type.Object({
      regions: Type.Array(Type.Object({ id: Type.String(), available: Type.Boolean() })),
      available: Type.Array(Type.String(), { description: 'Ids of the regions available now' }),
    }),
  },
  'GET /r/:referral_code': {
    302: Type.Null({ description: 'To the sign-up page (`Location`), with `?ref=` for a known code; sets `sy_ref`.' }),
  },
};

// ---- desktop apps (/api/v1/desktop*, /api/v1/assistant-desktop*) ----------------------------------------------

const PushMessage = Type.Object({
  message_key: Type.String(),
  title: Type.String(),
  body: Type.String(),
  level: Type.Union([Type.Literal('info'), Type.Literal('warning'), Type.Literal('critical')]),
  broadcast: Type.Boolean(),
  created_at: Timestamp,
  expires_at: Nullable(Timestamp),
});

const CoderSlots = Type.Object({
  used: Type.Integer(),
  free: Type.Integer(),
  purchased: Type.Integer(),
  total: Type.Integer(),
  available: Type.Integer(),
  max: Type.Integer(),
  price: Money,
});

const CoderProject = Type.Object({
  name: Type.String(),
  status: Type.Union([Type.Literal('creating'), Type.Literal('active'), Type.Literal('deleting')]),
  project_id: Nullable(Type.String()),
  database: Nullable(
    Type.Union([
      Type.Object({ engine: Type.Literal('sqlite'), path: Type.String(), url: Type.String() }),
      Type.Object({
        engine: Type.Literal('postgres'),
        host: Type.String(),
        port: Type.Integer(),
        database: Nullable(Type.String()),
        user: Nullable(Type.String()),
        password: Nullable(Type.String({ description: 'null when it cannot be unsealed' })),
        url: Type.String(),
      }),
    ]),
  ),
  created_at: Timestamp,
  last_opened_at: Timestamp,
});

const CoderProjects = Type.Object({ data: Type.Array(CoderProject), slots: CoderSlots });

/** A versioned desktop document as stored (version 0 and `{}` before the first write). */
const VersionedDocument = Type.Object({
  version: Type.Integer({ minimum: 0 }),
  data: Type.Object({}),
  size_bytes: Type.Integer({ minimum: 0 }),
  updated_at: Nullable(Timestamp),
});
const DocumentSaved = Type.Object({
  version: Type.Integer({ minimum: 1 }),
  size_bytes: Type.Integer({ minimum: 0 }),
  updated_at: Timestamp,
});

const ObjectWorkspaceProject = Type.Object({ project_id: Type.String(), name: Type.String(), created_at: Timestamp });
const StoredRepository = Type.Object({
  repository_name: Type.String(),
  source_url: Type.String(),
  commit: Type.String(),
  format: Type.String(),
  files: Type.Integer(),
  bytes: Type.Integer(),
  stored_at: Timestamp,
});

const desktop: ResponseCatalog = {
  'GET /api/v1/desktop/bootstrap': {
    200: Type.Object({
      token: Type.Object({ valid: Type.Literal(true), key_id: Type.Integer(), kind: Type.String() }),
      customer: Type.Object({}),
      key: Type.Object({ id: Type.Integer(), kind: Type.String() }),
      wallet: Wallet,
      usage: Type.Object({
        days: Type.Integer(),
        totals: Type.Object({ requests: Type.Integer(), input_tokens: Type.Integer(), output_tokens: Type.Integer(), spend: Money }),
        daily: Type.Array(Type.Object({})),
        transactions: Type.Array(Type.Object({})),
      }),
      inbox: Type.Object({ messages: Type.Array(Type.Object({})), unread_count: Type.Integer() }),
      push: Type.Object({ messages: Type.Array(PushMessage) }),
      coder: Type.Object({ projects: Type.Array(CoderProject), slots: CoderSlots }),
      releases: Type.Record(Type.String(), Nullable(Type.Object({})), { description: 'Per client product; null when none is configured' }),
      server_time: Timestamp,
    }),
  },
  'POST /api/v1/desktop/bug-report': { 201: Type.Object({ id: Type.Integer(), created_at: Timestamp }) },
  'POST /api/v1/desktop/presence': {
    200: Type.Object({ online: Type.Literal(true), last_seen_at: Timestamp, online_until: Timestamp, ttl_seconds: Type.Integer() }),
  },
  'GET /api/v1/desktop/coding-session': { 200: VersionedDocument },
  'PUT /api/v1/desktop/coding-session': { 200: DocumentSaved },
  'GET /api/v1/assistant-desktop/sync': { 200: VersionedDocument },
  'PUT /api/v1/assistant-desktop/sync': { 200: DocumentSaved },
  'GET /api/v1/desktop/coder/projects': { 200: CoderProjects },
  'POST /api/v1/desktop/coder/projects': {
    200: Type.Object({ project: CoderProject, created: Type.Literal(false) }, { description: 'An existing project, resumed' }),
    201: Type.Object({ project: CoderProject, created: Type.Literal(true), slots: CoderSlots }),
  },
  'POST /api/v1/desktop/coder/projects/purchase-slot': {
    200: Type.Object({
      purchase: Type.Object({ id: Type.Integer(), paid: Money, created_at: Timestamp }),
      slots: CoderSlots,
    }),
  },
  'DELETE /api/v1/desktop/coder/projects/:project_name': { 204: Type.Null({ description: 'Removed' }) },
  'GET /api/v1/assistant-desktop/push': { 200: Type.Object({ data: Type.Array(PushMessage) }) },
  'GET /api/v1/assistant-desktop/push/events': {
    200: EventStream('Push messages live: event `push` with the message and its id, oldest first; heartbeat comments.'),
  },
  'POST /api/v1/assistant-desktop/push/:message_key/dismiss': {
    200: Type.Object({ message_key: Type.String(), dismissed: Type.Literal(true), dismissed_at: Timestamp }),
  },
  'POST /api/v1/assistant-desktop/object-workspace': {
    200: Type.Object({
      created: Type.Boolean(),
      created_at: Timestamp,
      projects: Type.Array(ObjectWorkspaceProject),
      repositories: Type.Array(StoredRepository),
    }),
  },
  'POST /api/v1/assistant-desktop/object-workspace/projects': {
    201: Type.Composite([ObjectWorkspaceProject, Type.Object({ body: Type.Unknown() })]),
  },
  'DELETE /api/v1/assistant-desktop/object-workspace/projects/:project_id': {
    200: Type.Object({ project_id: Type.String(), deleted: Type.Literal(true) }),
  },
  'POST /api/v1/assistant-desktop/object-workspace/repositories/:repository_name': {
    201: Type.Composite([
      StoredRepository,
      Type.Object({ final_url: Type.String(), embedded_commit: Type.Unknown(), replaced: Type.Boolean() }),
    ]),
  },
};

export const platformResponses: ResponseCatalog = { ...gateway, ...direct, ...publicRoutes, ...desktop };

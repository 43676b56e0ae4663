/**
 * The direct thread and turn surface under `/api` (threads, turns, models, project open by working directory,
 * release), the approvals and event stream of direct threads, and (direct-rpc.ts) the raw JSON-RPC passthrough.
 * Bodies take snake_case fields and, for app-server clients, their camelCase spellings. Calls that reach the
 * app-server go through `agentCall`, so a process that is down or silent is a 503 or 504 as on the project routes.
 */
import { Type } from '@sinclair/typebox';
import { APPROVAL_DECISIONS } from '../../agent/approvals.js';
import { relativeToWorkspace } from '../../agent/files/workspace-path.js';
import { CATALOGUE_CUSTOMER_ID } from '../../agent/index.js';
import { agentCall } from '../../agent/project-runtime.js';
import type { ThreadStartRequest, TurnStartRequest } from '../../direct/direct-service.js';
import { customerFor, recordedThreadCustomer } from '../../direct/access.js';
import { notFound, validationError } from '../../kernel/errors.js';
import type { Services } from '../../services.js';
import type { App } from '../types.js';
import { directRpcRoutes, streamDirectEvents } from './direct-rpc.js';
import { permissionFields, permissionSelectionOf } from './permission-fields.js';

const directRoute = { auth: 'api', surface: 'projects' } as const;
const tags = ['direct'];
const CustomerQuery = { customer_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Operators only: the customer whose app-server to use' })) };
const ThreadParams = Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }) });

const settingFields = {
  model: Type.Optional(Type.String({ minLength: 1 })),
  effort: Type.Optional(Type.String({ minLength: 1 })),
  approval_policy: Type.Optional(Type.String({ minLength: 1, description: 'untrusted, on-request or never' })),
  approvalPolicy: Type.Optional(Type.String({ minLength: 1 })),
  ...permissionFields,
};
const ThreadStartBody = Type.Object(
  {
    cwd: Type.Optional(Type.String({ minLength: 1, description: 'Working directory inside your workspace root (absolute, or relative to it)' })),
    ...settingFields,
    base_instructions: Type.Optional(Type.String()),
    baseInstructions: Type.Optional(Type.String()),
    developer_instructions: Type.Optional(Type.String()),
    developerInstructions: Type.Optional(Type.String()),
  },
  { title: 'ThreadStartBody' },
);
const TurnStartBody = Type.Object(
  {
    thread_id: Type.Optional(Type.String({ minLength: 1 })),
    threadId: Type.Optional(Type.String({ minLength: 1 })),
    input: Type.Unknown({ description: 'Text, or a list of {type:"text",text} and {type:"image",url:"data:…"} items' }),
    cwd: Type.Optional(Type.String({ minLength: 1 })),
    ...settingFields,
  },
  { title: 'TurnStartBody' },
);
const ProjectOpenBody = Type.Object(
  { ...ThreadStartBody.properties, cwd: Type.String({ minLength: 1 }), prompt: Type.Optional(Type.String({ minLength: 1 })) },
  { title: 'ProjectOpenBody' },
);

type Body = Record<string, unknown>;
const first = <T>(...values: (T | undefined)[]): T | undefined => values.find((value) => value !== undefined);

function threadRequest(body: Body): ThreadStartRequest {
  return {
    cwd: body.cwd as string | undefined,
    model: body.model as string | undefined,
    effort: body.effort as string | undefined,
    approvalPolicy: first(body.approval_policy, body.approvalPolicy) as string | undefined,
    ...permissionSelectionOf(body),
    baseInstructions: first(body.base_instructions, body.baseInstructions) as string | undefined,
    developerInstructions: first(body.developer_instructions, body.developerInstructions) as string | undefined,
  };
}

export async function directRoutes(app: App, services: Services): Promise<void> {
  const { direct } = services;

  app.get(
    '/api/models',
    { config: directRoute, schema: { tags, summary: 'Models threads can use (the app-server catalog merged with the gateway models and aliases)', querystring: Type.Object({ include_hidden: Type.Boolean({ default: false }), ...CustomerQuery }) } },
    (request) => {
      const principal = request.principal!;
      const customerId = principal.kind === 'customer' ? principal.customerId : (request.query.customer_id ?? CATALOGUE_CUSTOMER_ID);
      return agentCall(direct.catalog.models(customerId, request.query.include_hidden));
    },
  );

  app.get(
    '/api/threads',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Your threads, newest first (cursor paging)',
        querystring: Type.Object({
          cursor: Type.Optional(Type.String({ minLength: 1 })),
          limit: Type.Integer({ minimum: 1, maximum: 100, default: 25 }),
          cwd: Type.Optional(Type.String({ minLength: 1 })),
          archived: Type.Optional(Type.Boolean()),
          search_term: Type.Optional(Type.String({ minLength: 1 })),
          ...CustomerQuery,
        }),
      },
    },
    (request) => {
      const { query } = request;
      return agentCall(direct.threads.listThreads(request.principal!, { cursor: query.cursor, limit: query.limit, cwd: query.cwd, archived: query.archived, searchTerm: query.search_term }, query.customer_id));
    },
  );

  app.post(
    '/api/threads',
    { config: directRoute, schema: { tags, summary: 'Start a thread in a working directory inside your workspace root', body: ThreadStartBody, querystring: Type.Object(CustomerQuery) } },
    async (request, reply) => reply.code(201).send(await agentCall(direct.threads.startThread(request.principal!, threadRequest(request.body), request.query.customer_id))),
  );

  app.get(
    '/api/threads/:thread_id',
    { config: directRoute, schema: { tags, summary: 'One thread, optionally with its turns', params: ThreadParams, querystring: Type.Object({ include_turns: Type.Boolean({ default: false }) }) } },
    (request) => agentCall(direct.threads.getThread(request.principal!, request.params.thread_id, request.query.include_turns)),
  );

  app.post(
    '/api/threads/:thread_id/resume',
    { config: directRoute, schema: { tags, summary: 'Resume a thread (optional setting overrides)', params: ThreadParams, body: ThreadStartBody }, preValidation: emptyBodyAsObject },
    (request) => agentCall(direct.threads.resumeThread(request.principal!, request.params.thread_id, threadRequest(request.body))),
  );

  app.post(
    '/api/turns',
    { config: directRoute, schema: { tags, summary: 'Start a turn on a thread (409 while one runs)', body: TurnStartBody } },
    async (request, reply) => {
      const body = request.body as Body;
      const turn: TurnStartRequest = {
        ...threadRequest(body),
        threadId: first(body.thread_id, body.threadId) as string,
        input: body.input as TurnStartRequest['input'],
      };
      if (!turn.threadId) throw validationError([{ loc: ['body', 'thread_id'], msg: 'thread_id is required', type: 'missing' }]);
      return reply.code(202).send(await agentCall(direct.threads.startTurn(request.principal!, turn)));
    },
  );

  app.post(
    '/api/turns/:turn_id/interrupt',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Interrupt a running turn (409 when it is not running)',
        params: Type.Object({ turn_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        querystring: Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }) }),
      },
    },
    (request) => agentCall(direct.threads.interrupt(request.principal!, request.params.turn_id, request.query.thread_id)),
  );

  app.post(
    '/api/projects/open',
    { config: directRoute, schema: { tags, summary: 'Open a working directory: resume its latest thread, else start one; a prompt starts a turn', body: ProjectOpenBody, querystring: Type.Object(CustomerQuery) } },
    (request) => agentCall(direct.threads.openProject(request.principal!, { ...threadRequest(request.body), prompt: request.body.prompt }, request.query.customer_id)),
  );

  app.get(
    '/api/core/releases/current',
    { config: directRoute, schema: { tags, summary: 'The app-server release that runs here and the reference CLI target' } },
    (request) => direct.catalog.release(request.principal!.kind === 'customer' ? request.principal!.customerId : null),
  );

  app.get(
    '/api/threads/:thread_id/approvals',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Approvals of a direct thread (pending by default)',
        params: ThreadParams,
        querystring: Type.Object({ status: Type.Union(['pending', 'resolved', 'cancelled', 'expired', 'lost', 'all'].map((status) => Type.Literal(status)), { default: 'pending' }) }),
      },
    },
    async (request) => {
      const customerId = await recordedThreadCustomer(request.principal!, request.params.thread_id, direct.owners);
      const status = request.query.status === 'all' ? undefined : (request.query.status as 'pending');
      const data = await services.agent.approvals.list(await direct.stream(customerId), { threadId: request.params.thread_id, status });
      return { data: relativeToWorkspace(data, await direct.workspaceRoot(customerId)) };
    },
  );

  app.post(
    '/api/threads/:thread_id/approvals/:request_id/resolve',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Resolve an approval of a direct thread; an empty body means {decision: "accept"}; twice → 409',
        params: Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }), request_id: Type.String({ minLength: 1, maxLength: 100 }) }),
        body: Type.Object({ decision: Type.Optional(Type.Union(APPROVAL_DECISIONS.map((decision) => Type.Literal(decision)))) }),
      },
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const { thread_id: threadId, request_id: requestId } = request.params;
      const customerId = await recordedThreadCustomer(request.principal!, threadId, direct.owners);
      const stream = await direct.stream(customerId);
      const known = await services.agent.approvals.list(stream, { threadId });
      if (!known.some((approval) => approval.request_id === requestId)) throw notFound('Approval request');
      // Never forward an empty answer: the app-server reads `{}` as a failure, not as consent.
      const decision = request.body.decision ?? 'accept';
      const resolved = await services.agent.approvals.resolve(stream, requestId, decision);
      return { ...relativeToWorkspace(resolved, await direct.workspaceRoot(customerId)), decision_applied: decision };
    },
  );

  app.get(
    '/api/events',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Server-sent events of your direct threads (id: sequence number, event: app-server method or approval/*); resumes after Last-Event-ID',
        querystring: Type.Object({ after: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })), ...CustomerQuery }),
      },
    },
    (request, reply) => streamDirectEvents(services, request, reply, customerFor(request.principal!, request.query.customer_id), request.query.after),
  );

  await directRpcRoutes(app, services);
}

/** These bodies are optional: no body (or an empty one) means "no overrides". */
async function emptyBodyAsObject(request: { body: unknown }): Promise<void> {
  if (request.body === undefined || request.body === null) request.body = {};
}

/**
 * `/api/threads*` of the direct surface: list, start, read and resume threads, and the approvals of a thread. The
 * setting fields and `threadRequest` here are shared by the other direct routes (`turns.ts`, `projects.ts`, …).
 * Bodies take snake_case fields and, for app-server clients, their camelCase spellings. App-server failures
 * are mapped once, by the `/api` scope's error handler: a process that is down or silent is a 503 or 504.
 */
import { Type } from '@sinclair/typebox';
import { APPROVAL_DECISIONS } from '../../../agent/approvals.js';
import { relativeToWorkspace } from '../../../agent/files/workspace-path.js';
import type { ThreadStartRequest } from '../../../direct/direct-service.js';
import { recordedThreadCustomer } from '../../../direct/access.js';
import { notFound } from '../../../kernel/errors.js';
import type { AgentServices } from '../../../agent/index.js';
import type { DirectServices } from '../../../direct/index.js';
import type { App } from '../../types.js';
import { emptyBodyAsObject } from '../shared/optional-body.js';
import { permissionFields, permissionSelectionOf } from '../shared/permission-fields.js';

export const directRoute = { auth: 'api', surface: 'projects' } as const;
export const tags = ['direct'];
export const CustomerQuery = {
  customer_id: Type.Optional(Type.Integer({ minimum: 1, description: 'Operators only: the customer whose app-server to use' })),
};
const ThreadParams = Type.Object({ thread_id: Type.String({ minLength: 1, maxLength: 100 }) });

export const settingFields = {
  model: Type.Optional(Type.String({ minLength: 1 })),
  effort: Type.Optional(Type.String({ minLength: 1 })),
  approval_policy: Type.Optional(Type.String({ minLength: 1, description: 'untrusted, on-request or never' })),
  approvalPolicy: Type.Optional(Type.String({ minLength: 1 })),
  ...permissionFields,
};
export const ThreadStartBody = Type.Object(
  {
    cwd: Type.Optional(
      Type.String({ minLength: 1, description: 'Working directory inside your workspace root (absolute, or relative to it)' }),
    ),
    ...settingFields,
    base_instructions: Type.Optional(Type.String()),
    baseInstructions: Type.Optional(Type.String()),
    developer_instructions: Type.Optional(Type.String()),
    developerInstructions: Type.Optional(Type.String()),
  },
  { title: 'ThreadStartBody' },
);
export type Body = Record<string, unknown>;
export const first = <T>(...values: (T | undefined)[]): T | undefined => values.find((value) => value !== undefined);

export function threadRequest(body: Body): ThreadStartRequest {
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

export interface ThreadRouteDeps {
  direct: Pick<DirectServices, 'threads' | 'owners' | 'stream' | 'workspaceRoot'>;
  agent: Pick<AgentServices, 'approvals'>;
}

export async function threadRoutes(app: App, deps: ThreadRouteDeps): Promise<void> {
  const { direct } = deps;

  app.get(
    '/threads',
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
      return direct.threads.listThreads(
        request.principal!,
        { cursor: query.cursor, limit: query.limit, cwd: query.cwd, archived: query.archived, searchTerm: query.search_term },
        query.customer_id,
      );
    },
  );

  app.post(
    '/threads',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Start a thread in a working directory inside your workspace root',
        body: ThreadStartBody,
        querystring: Type.Object(CustomerQuery),
      },
    },
    async (request, reply) =>
      reply.code(201).send(await direct.threads.startThread(request.principal!, threadRequest(request.body), request.query.customer_id)),
  );

  app.get(
    '/threads/:thread_id',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'One thread, optionally with its turns',
        params: ThreadParams,
        querystring: Type.Object({ include_turns: Type.Boolean({ default: false }) }),
      },
    },
    (request) => direct.threads.getThread(request.principal!, request.params.thread_id, request.query.include_turns),
  );

  app.post(
    '/threads/:thread_id/resume',
    {
      config: directRoute,
      schema: { tags, summary: 'Resume a thread (optional setting overrides)', params: ThreadParams, body: ThreadStartBody },
      preValidation: emptyBodyAsObject,
    },
    (request) => direct.threads.resumeThread(request.principal!, request.params.thread_id, threadRequest(request.body)),
  );

  threadApprovalRoutes(app, deps);
}

/** `/api/threads/{id}/approvals*`: a direct thread's approvals and resolving one. */
function threadApprovalRoutes(app: App, deps: ThreadRouteDeps): void {
  const { direct } = deps;

  app.get(
    '/threads/:thread_id/approvals',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Approvals of a direct thread (pending by default)',
        params: ThreadParams,
        querystring: Type.Object({
          status: Type.Union(
            ['pending', 'resolved', 'cancelled', 'expired', 'lost', 'all'].map((status) => Type.Literal(status)),
            { default: 'pending' },
          ),
        }),
      },
    },
    async (request) => {
      const customerId = await recordedThreadCustomer(request.principal!, request.params.thread_id, direct.owners);
      const status = request.query.status === 'all' ? undefined : (request.query.status as 'pending');
      const data = await deps.agent.approvals.list(await direct.stream(customerId), { threadId: request.params.thread_id, status });
      return { data: relativeToWorkspace(data, await direct.workspaceRoot(customerId)) };
    },
  );

  app.post(
    '/threads/:thread_id/approvals/:request_id/resolve',
    {
      config: directRoute,
      schema: {
        tags,
        summary: 'Resolve an approval of a direct thread; an empty body means {decision: "accept"}; twice → 409',
        params: Type.Object({
          thread_id: Type.String({ minLength: 1, maxLength: 100 }),
          request_id: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        body: Type.Object({ decision: Type.Optional(Type.Union(APPROVAL_DECISIONS.map((decision) => Type.Literal(decision)))) }),
      },
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const { thread_id: threadId, request_id: requestId } = request.params;
      const customerId = await recordedThreadCustomer(request.principal!, threadId, direct.owners);
      const stream = await direct.stream(customerId);
      const known = await deps.agent.approvals.list(stream, { threadId });
      if (!known.some((approval) => approval.request_id === requestId)) throw notFound('Approval request');
      // Never forward an empty answer: the app-server reads `{}` as a failure, not as consent.
      const decision = request.body.decision ?? 'accept';
      const resolved = await deps.agent.approvals.resolve(stream, requestId, decision);
      return { ...relativeToWorkspace(resolved, await direct.workspaceRoot(customerId)), decision_applied: decision };
    },
  );
}

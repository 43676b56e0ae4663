/**
 * The runtime of one managed project, `/api/v1/projects/{projectId}` and below: metadata, open, state, thread,
 * turns, interrupts and approvals. Every route checks ownership first (another customer's project is a 404).
 * Create, list, rename and delete live in index.ts, events in events.ts, files in files.ts.
 */
import { Type } from '@sinclair/typebox';
import { APPROVAL_DECISIONS } from '../../../../../agent/approvals.js';
import { relativeToWorkspace } from '../../../../../agent/files/workspace-path.js';
import { projectView } from '../../../../../agent/projects/index.js';
import type { TurnRequest } from '../../../../../agent/turn-input.js';
import type { AgentServices } from '../../../../../agent/index.js';
import type { ProjectStore } from '../../../../../agent/projects/types.js';
import { AppError } from '../../../../../kernel/errors.js';
import type { App } from '../../../../types.js';
import { emptyBodyAsObject } from '../../../shared/optional-body.js';
import { permissionFields, permissionSelectionOf } from '../../../shared/permission-fields.js';

const projectRoute = { auth: 'api', surface: 'projects' } as const;
const ProjectParams = Type.Object({ projectId: Type.String({ minLength: 1, maxLength: 100 }) });

const TurnBody = Type.Object({
  // Checked by the runtime: a union here would be mangled by the coercing validator (string ⇄ array).
  input: Type.Optional(Type.Unknown({ description: 'Text, or a list of {type:"text",text} and {type:"image",url:"data:…"} items' })),
  prompt: Type.Optional(Type.String({ minLength: 1 })),
  model: Type.Optional(Type.String({ minLength: 1 })),
  effort: Type.Optional(Type.String({ minLength: 1 })),
  approvalPolicy: Type.Optional(Type.String({ minLength: 1 })),
  ...permissionFields,
});

function withRelativeDetails(error: unknown, workspaceDir: string): unknown {
  if (!(error instanceof AppError) || error.details === undefined) return error;
  return new AppError(error.code, error.message, {
    details: relativeToWorkspace(error.details, workspaceDir),
    retryAfterSeconds: error.retryAfterSeconds,
    cause: error,
  });
}

export interface ProjectRuntimeRouteDeps {
  projects: Pick<ProjectStore, 'requireOwned'>;
  agent: Pick<AgentServices, 'runtime' | 'approvals'>;
}

export async function projectRuntimeRoutes(app: App, deps: ProjectRuntimeRouteDeps): Promise<void> {
  const { agent } = deps;
  const runtime = agent.runtime;

  app.get(
    '/:projectId',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Project metadata, latest thread summary and the defaults a turn runs with',
        params: ProjectParams,
      },
    },
    async (request) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      return {
        ...projectView(project),
        latest_thread: await runtime.latest(project),
        turn_defaults: await runtime.turnDefaults(project.customerId),
      };
    },
  );

  app.post(
    '/:projectId/open',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Open or resume the project (its latest thread, or a fresh one with new_thread); an optional prompt starts a turn',
        params: ProjectParams,
        body: Type.Object({
          prompt: Type.Optional(Type.String({ minLength: 1 })),
          new_thread: Type.Optional(
            Type.Boolean({
              description: 'Start a fresh thread for the project instead of resuming its latest one (409 while a turn runs)',
            }),
          ),
        }),
      },
      preValidation: emptyBodyAsObject,
    },
    (request) => runtime.open(request.principal!, request.params.projectId, request.body),
  );

  app.get(
    '/:projectId/state',
    {
      config: projectRoute,
      schema: { tags: ['projects'], summary: 'Metadata, latest thread state and pending approvals', params: ProjectParams },
    },
    async (request) => {
      const { project, thread } = await runtime.threadDetail(request.principal!, request.params.projectId, false);
      const pending = thread ? await agent.approvals.list(project.id, { threadId: thread.id, status: 'pending' }) : [];
      return { project: projectView(project), ...relativeToWorkspace({ thread, pending_approvals: pending }, project.workspaceDir) };
    },
  );

  app.get(
    '/:projectId/thread',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'The latest thread, with its turns',
        params: ProjectParams,
        querystring: Type.Object({ include_turns: Type.Boolean({ default: true }) }),
      },
    },
    async (request) => {
      const { project, thread } = await runtime.threadDetail(request.principal!, request.params.projectId, request.query.include_turns);
      return { thread: relativeToWorkspace(thread, project.workspaceDir) };
    },
  );

  projectTurnRoutes(app, deps);
  projectApprovalRoutes(app, deps);
}

/** `/api/v1/projects/{id}/turns*`: start (once per Idempotency-Key when given), interrupt, and a turn's file changes. */
function projectTurnRoutes(app: App, deps: ProjectRuntimeRouteDeps): void {
  const runtime = deps.agent.runtime;

  app.post(
    '/:projectId/turns',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Start a turn (409 while one runs); Idempotency-Key returns the first result',
        params: ProjectParams,
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String({ minLength: 1, maxLength: 200 })) }),
        body: TurnBody,
      },
    },
    async (request, reply) => {
      const key = request.headers['idempotency-key'];
      const body: TurnRequest = { ...(request.body as TurnRequest), ...permissionSelectionOf(request.body as Record<string, unknown>) };
      const { projectId } = request.params;
      const result = await (key
        ? runtime.startTurnOnce(request.principal!, projectId, body, key)
        : runtime.startTurn(request.principal!, projectId, body));
      return reply.code(202).send(result);
    },
  );

  app.post(
    '/:projectId/turns/:turnId/interrupt',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Interrupt the running turn (409 when it is not running)',
        params: Type.Object({
          projectId: Type.String({ minLength: 1, maxLength: 100 }),
          turnId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
      },
    },
    (request) => runtime.interrupt(request.principal!, request.params.projectId, request.params.turnId),
  );

  app.get(
    '/:projectId/turns/:turnId/changes',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: "A turn's file changes with their diffs (workspace-relative paths)",
        params: Type.Object({
          projectId: Type.String({ minLength: 1, maxLength: 100 }),
          turnId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
      },
    },
    async (request) => {
      const { project, ...changes } = await runtime.turnChanges(request.principal!, request.params.projectId, request.params.turnId);
      return relativeToWorkspace(changes, project.workspaceDir);
    },
  );
}

/** `/api/v1/projects/{id}/approvals*`: the pending and past approvals of the project's thread, and resolving one. */
function projectApprovalRoutes(app: App, deps: ProjectRuntimeRouteDeps): void {
  const { agent } = deps;
  const runtime = agent.runtime;

  app.get(
    '/:projectId/approvals',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Approvals of the latest thread (pending by default)',
        params: ProjectParams,
        querystring: Type.Object({
          status: Type.Union(
            [
              Type.Literal('pending'),
              Type.Literal('resolved'),
              Type.Literal('cancelled'),
              Type.Literal('expired'),
              Type.Literal('lost'),
              Type.Literal('all'),
            ],
            {
              default: 'pending',
            },
          ),
        }),
      },
    },
    async (request) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      const latest = await runtime.latest(project);
      if (!latest) return { data: [] };
      const status = request.query.status === 'all' ? undefined : request.query.status;
      return { data: relativeToWorkspace(await agent.approvals.list(project.id, { threadId: latest.id, status }), project.workspaceDir) };
    },
  );

  app.post(
    '/:projectId/approvals/:requestId/resolve',
    {
      config: projectRoute,
      schema: {
        tags: ['projects'],
        summary: 'Resolve an approval; an empty body means {decision: "accept"}; twice → 409 with the recorded outcome',
        params: Type.Object({
          projectId: Type.String({ minLength: 1, maxLength: 100 }),
          requestId: Type.String({ minLength: 1, maxLength: 100 }),
        }),
        body: Type.Object({ decision: Type.Optional(Type.Union(APPROVAL_DECISIONS.map((decision) => Type.Literal(decision)))) }),
      },
      preValidation: emptyBodyAsObject,
    },
    async (request) => {
      const project = await deps.projects.requireOwned(request.principal!, request.params.projectId);
      // Never forward an empty answer: the app-server reads `{}` as a failure, not as consent.
      const decision = request.body.decision ?? 'accept';
      // A 409 carries the recorded approval: its paths are relative too.
      const approval = await agent.approvals.resolve(project.id, request.params.requestId, decision).catch((error: unknown) => {
        throw withRelativeDetails(error, project.workspaceDir);
      });
      return { ...relativeToWorkspace(approval, project.workspaceDir), decision_applied: decision };
    },
  );
}

/**
 * Spans of agent turns: one per turn (`agent.turn`, under the HTTP request that started it), with the turn's model
 * calls (see model-call.ts: their parent is `turnContext`), its commands (`agent.command`) and its approvals
 * (`agent.approval`) as children. A thread runs one turn at a time, so open turns are kept by thread id. With
 * tracing off every function returns at its first line.
 */
import { trace, SpanStatusCode, type Context, type Span } from '@opentelemetry/api';
import { activeContext, recordsContent, startSpan, tracer } from './tracing.js';

interface OpenTurn {
  span: Span;
  context: Context;
  /** Command item id → its span. */
  commands: Map<string, Span>;
}

const turns = new Map<string, OpenTurn>();

/** A turn is being started on `threadId` (by the request in force); its span lasts until `turn/completed`. */
export function turnStarting(threadId: string, attributes: { customerId: number; projectId?: string; model?: string }): void {
  if (tracer() === null) return;
  endTurnSpan(threadId, 'replaced');
  const span = startSpan('agent.turn', {
    attributes: {
      'switchyard.thread_id': threadId,
      'switchyard.customer_id': attributes.customerId,
      ...(attributes.projectId ? { 'switchyard.project_id': attributes.projectId } : {}),
      ...(attributes.model ? { 'gen_ai.request.model': attributes.model } : {}),
      'gen_ai.operation.name': 'invoke_agent',
    },
  })!;
  turns.set(threadId, { span, context: trace.setSpan(activeContext(), span), commands: new Map() });
}

/** The turn start was refused or failed: its span ends as failed. */
export function turnStartFailed(threadId: string, error: unknown): void {
  const turn = turns.get(threadId);
  if (turn === undefined) return;
  turn.span.setAttribute('error.type', errorType(error));
  endTurnSpan(threadId, 'failed');
}

/** The parent of a model request made during the thread's running turn; undefined when none is traced. */
export function turnContext(threadId: string | undefined): Context | undefined {
  return threadId === undefined ? undefined : turns.get(threadId)?.context;
}

/** An app-server notification of the thread: turn ids, commands and the turn's end shape the spans. */
export function turnNotification(threadId: string, method: string, params: Record<string, unknown>): void {
  const turn = turns.get(threadId);
  if (turn === undefined) return;
  const item = params.item as { type?: string; id?: string; command?: unknown; exitCode?: unknown; status?: unknown } | undefined;
  switch (method) {
    case 'turn/started':
      turn.span.setAttribute('switchyard.turn_id', String((params.turn as { id?: unknown } | undefined)?.id ?? ''));
      return;
    case 'item/started':
      if (item?.type === 'commandExecution' && item.id) {
        const command = startSpan('agent.command', {
          parent: turn.context,
          attributes: {
            'switchyard.item_id': item.id,
            ...(recordsContent() && typeof item.command === 'string' ? { 'switchyard.command': item.command } : {}),
          },
        })!;
        turn.commands.set(item.id, command);
      }
      return;
    case 'item/completed': {
      const command = item?.id ? turn.commands.get(item.id) : undefined;
      if (command === undefined) return;
      if (typeof item!.exitCode === 'number') command.setAttribute('process.exit.code', item!.exitCode);
      if (typeof item!.status === 'string') command.setAttribute('switchyard.status', item!.status);
      if (item!.status === 'failed' || (typeof item!.exitCode === 'number' && item!.exitCode !== 0))
        command.setStatus({ code: SpanStatusCode.ERROR, message: 'the command failed' });
      command.end();
      turn.commands.delete(item!.id!);
      return;
    }
    case 'turn/completed': {
      const status = (params.turn as { status?: unknown } | undefined)?.status;
      endTurnSpan(threadId, typeof status === 'string' ? status : 'completed');
      return;
    }
    default:
      return;
  }
}

/** Times an approval the turn waits for (`kind`: commandExecution or fileChange) until it is decided. */
export async function tracedApproval<T extends { decision: string }>(threadId: string, kind: string, wait: () => Promise<T>): Promise<T> {
  const turn = turns.get(threadId);
  if (turn === undefined) return wait();
  const span = startSpan('agent.approval', { parent: turn.context, attributes: { 'switchyard.approval_kind': kind } })!;
  try {
    const answer = await wait();
    span.setAttribute('switchyard.decision', answer.decision);
    return answer;
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: errorType(error) });
    throw error;
  } finally {
    span.end();
  }
}

function endTurnSpan(threadId: string, status: string): void {
  const turn = turns.get(threadId);
  if (turn === undefined) return;
  turns.delete(threadId);
  for (const command of turn.commands.values()) command.end();
  turn.span.setAttribute('switchyard.turn_status', status);
  if (status === 'failed') turn.span.setStatus({ code: SpanStatusCode.ERROR, message: 'the turn failed' });
  turn.span.end();
}

function errorType(error: unknown): string {
  return error instanceof Error ? String((error as { code?: unknown }).code ?? error.name) : 'error';
}

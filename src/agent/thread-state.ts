/** What the runtime knows about one loaded thread, and how app-server notifications change it (pure). */
import type { Thread } from '../appserver/protocol.js';

export interface ThreadState {
  projectId: string;
  customerId: number;
  activeTurnId: string | null;
  /** Set while a turn/start is in flight, so a second start is refused before the first is known. */
  starting: boolean;
  /** turn/completed can be read before the turn/start reply is handled; this keeps the ended turn from reviving. */
  lastEndedTurnId: string | null;
}

export interface NotificationEffect {
  endedTurnId?: string;
  /** `serverRequest/resolved`: the app-server closed this request's dialog itself. */
  closedServerRequest?: unknown;
}

/** Applies one notification to the thread's state and the file-change cache (item id → changes). */
export function applyNotification(state: ThreadState, fileChanges: Map<string, unknown>, method: string, params: Record<string, unknown>): NotificationEffect {
  const turn = params.turn as { id: string } | undefined;
  const item = params.item as { type?: string; id?: string; changes?: unknown } | undefined;
  switch (method) {
    case 'turn/started':
      if (turn && state.lastEndedTurnId !== turn.id) state.activeTurnId = turn.id;
      return {};
    case 'turn/completed':
      if (!turn) return {};
      state.lastEndedTurnId = turn.id;
      if (state.activeTurnId === turn.id) state.activeTurnId = null;
      return { endedTurnId: turn.id };
    case 'serverRequest/resolved':
      return { closedServerRequest: params.requestId };
    case 'item/started':
      // Approval requests for file changes carry no diff; the preceding item/started does.
      if (item?.type === 'fileChange' && item.id) fileChanges.set(item.id, item.changes);
      return {};
    case 'item/completed':
      if (item?.type === 'fileChange' && item.id) fileChanges.delete(item.id);
      return {};
    default:
      return {};
  }
}

export function threadView(thread: Thread, activeTurnId: string | null) {
  return {
    id: thread.id,
    status: thread.status,
    preview: thread.preview,
    name: thread.name,
    model_provider: thread.modelProvider,
    created_at: thread.createdAt * 1000,
    updated_at: thread.updatedAt * 1000,
    active_turn_id: activeTurnId,
  };
}

/**
 * What the runtime knows about one loaded thread, the one-turn-at-a-time gate that project and direct threads
 * share, and how app-server notifications change a thread's state (pure).
 */
import type { Thread } from '../appserver/protocol.js';
import type { Principal } from '../accounts/principal.js';
import type { TurnCredential, TurnPrincipals } from '../accounts/turn-principals.js';
import { AppError } from '../kernel/errors.js';
import { turnStartFailed, turnStarting } from '../telemetry/index.js';

/** The turn bookkeeping of one loaded thread. */
export interface TurnState {
  customerId: number;
  activeTurnId: string | null;
  /** Set while a turn/start is in flight, so a second start is refused before the first is known. */
  starting: boolean;
  /** turn/completed can be read before the turn/start reply is handled; this keeps the ended turn from reviving. */
  lastEndedTurnId: string | null;
}

/** A managed project's thread. */
export interface ThreadState extends TurnState {
  projectId: string;
}

/** What a caller records about a thread besides its turn bookkeeping. */
export type ThreadDetails<State extends TurnState> = Omit<State, 'activeTurnId' | 'starting' | 'lastEndedTurnId'>;

/**
 * The loaded threads of one surface, by thread id, and the gate that lets one turn run per thread: a start is
 * refused while a turn runs or while another start is still waiting for the app-server's answer.
 */
export class ThreadTurns<State extends TurnState> {
  private readonly states = new Map<string, State>();
  private refusing = false;

  /** `principals` learns which key each turn acts for, so the turn's model requests are policed as that key. */
  constructor(private readonly principals?: TurnPrincipals) {}

  get(threadId: string): State | undefined {
    return this.states.get(threadId);
  }

  /** Starts tracking a thread; a thread already tracked keeps its state (and its running turn). */
  remember(threadId: string, details: ThreadDetails<State>): State {
    let state = this.states.get(threadId);
    if (!state) {
      state = { ...details, activeTurnId: null, starting: false, lastEndedTurnId: null } as State;
      this.states.set(threadId, state);
    }
    return state;
  }

  /** Stops tracking a thread unless a turn runs or starts on it; whether it was forgotten. */
  forgetIdle(threadId: string): boolean {
    const state = this.states.get(threadId);
    if (!state || isTurnBusy(state)) return false;
    this.states.delete(threadId);
    this.principals?.unbind(threadId);
    return true;
  }

  activeTurn(threadId: string): string | null {
    return this.states.get(threadId)?.activeTurnId ?? null;
  }

  ofCustomer(customerId: number): State[] {
    return [...this.states.values()].filter((state) => state.customerId === customerId);
  }

  /** Whether a turn runs or starts on any of the customer's threads. */
  isBusy(customerId: number): boolean {
    return this.ofCustomer(customerId).some(isTurnBusy);
  }

  /** The turns running (started, not yet ended) on the customer's threads. */
  running(customerId: number): { threadId: string; turnId: string }[] {
    const found: { threadId: string; turnId: string }[] = [];
    for (const [threadId, state] of this.states)
      if (state.customerId === customerId && state.activeTurnId !== null) found.push({ threadId, turnId: state.activeTurnId });
    return found;
  }

  /** The node drains: running turns go on, every later start is refused (503, the client retries at another node). */
  refuseStarts(): void {
    this.refusing = true;
  }

  /** The customer's app-server died: no turn of theirs runs any more, and no start is waiting for an answer. */
  crashed(customerId: number): State[] {
    const states = this.ofCustomer(customerId);
    for (const state of states) {
      state.activeTurnId = null;
      state.starting = false;
    }
    return states;
  }

  /**
   * Runs `start` as the thread's one turn start; a CONFLICT (409) with `conflictMessage` while a turn runs or
   * starts. `start` gets the turn's fresh credential, to hand the app-server with `turn/start`
   * (`responsesapiClientMetadata`). The started turn becomes the running one unless its turn/completed was already read.
   */
  async start<T extends { turn: { id: string } }>(
    threadId: string,
    conflictMessage: string,
    start: (credential: TurnCredential) => Promise<T>,
    startedBy?: Principal,
  ): Promise<T> {
    const state = this.states.get(threadId);
    if (!state) throw new AppError('INTERNAL', 'thread state missing');
    if (this.refusing) throw new AppError('UPSTREAM_UNAVAILABLE', 'This node is shutting down; retry shortly', { retryAfterSeconds: 1 });
    if (isTurnBusy(state)) throw new AppError('CONFLICT', conflictMessage, { details: { turn_id: state.activeTurnId } });
    // Bound before the app-server hears of the turn: its first model request may come before turn/start answers.
    const credential = this.principals?.bind(threadId, state, startedBy?.kind === 'customer' ? startedBy : null) ?? { metadata: {} };
    state.starting = true;
    turnStarting(threadId, { customerId: state.customerId, projectId: (state as Partial<ThreadState>).projectId });
    try {
      const result = await start(credential);
      this.principals?.started(threadId, result.turn.id);
      if (state.lastEndedTurnId !== result.turn.id) state.activeTurnId = result.turn.id;
      return result;
    } catch (error) {
      this.principals?.unbind(threadId);
      turnStartFailed(threadId, error);
      throw error;
    } finally {
      state.starting = false;
    }
  }
}

function isTurnBusy(state: TurnState): boolean {
  return state.activeTurnId !== null || state.starting;
}

/** The turn ended: it is no longer running, and a late start reply or turn/started cannot revive it. */
export function endTurn(state: TurnState, turnId: string): void {
  state.lastEndedTurnId = turnId;
  if (state.activeTurnId === turnId) state.activeTurnId = null;
}

/**
 * The `turn/completed` the app-server would have sent for a turn it never finished (it died, or was stopped while
 * the turn ran): interrupted, no items, the shape of the app-server's own.
 */
export function interruptedTurn(threadId: string, turnId: string) {
  return { threadId, turn: { id: turnId, items: [], status: 'interrupted', error: null } };
}

export interface NotificationEffect {
  endedTurnId?: string;
  /** `serverRequest/resolved`: the app-server closed this request's dialog itself. */
  closedServerRequest?: unknown;
}

/** Applies one notification to the thread's state and the file-change cache (item id → changes). */
export function applyNotification(
  state: TurnState,
  fileChanges: Map<string, unknown>,
  method: string,
  params: Record<string, unknown>,
): NotificationEffect {
  const turn = params.turn as { id: string } | undefined;
  const item = params.item as { type?: string; id?: string; changes?: unknown } | undefined;
  switch (method) {
    case 'turn/started':
      if (turn && state.lastEndedTurnId !== turn.id) state.activeTurnId = turn.id;
      return {};
    case 'turn/completed':
      if (!turn) return {};
      endTurn(state, turn.id);
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

/**
 * Items a turn leaves open. The app-server sends no `item/completed` for an item whose turn ended under it (a
 * command waiting for an approval when the turn is interrupted stays `inProgress` for good, in the stream and in
 * `thread/read`). The service gives each such item a final state when its turn ends: `interrupted` when the turn
 * was interrupted, `failed` otherwise, so no client shows a command running after its turn is over.
 */

type Item = Record<string, unknown> & { id?: unknown; status?: unknown };

/** The status an item left open takes when its turn ended with `turnStatus`. */
export function finalItemStatus(turnStatus: unknown): 'interrupted' | 'failed' {
  return turnStatus === 'interrupted' ? 'interrupted' : 'failed';
}

/** Items started and not completed, per thread and turn (only while their turn runs). */
export class OpenItems {
  /** thread id → item id → { turn id, the item as last seen }. */
  private readonly threads = new Map<string, Map<string, { turnId: string; item: Item }>>();

  /** Follows one notification of the thread. */
  track(threadId: string, method: string, params: Record<string, unknown>): void {
    const item = params.item as Item | undefined;
    if (method === 'item/started' && item && typeof item.id === 'string' && typeof params.turnId === 'string') {
      let items = this.threads.get(threadId);
      if (!items) this.threads.set(threadId, (items = new Map()));
      items.set(item.id, { turnId: params.turnId, item });
    } else if (method === 'item/completed' && item && typeof item.id === 'string') {
      this.threads.get(threadId)?.delete(item.id);
    }
  }

  /**
   * The turn ended: the `item/completed` params for each of its items still open (their status final), which
   * are forgotten. Items of other turns stay.
   */
  close(threadId: string, turnId: string, turnStatus: unknown): Record<string, unknown>[] {
    const items = this.threads.get(threadId);
    if (!items) return [];
    const closed: Record<string, unknown>[] = [];
    for (const [itemId, open] of items) {
      if (open.turnId !== turnId) continue;
      items.delete(itemId);
      closed.push({ threadId, turnId, item: { ...open.item, status: finalItemStatus(turnStatus) } });
    }
    if (items.size === 0) this.threads.delete(threadId);
    return closed;
  }

  forget(threadId: string): void {
    this.threads.delete(threadId);
  }
}

/**
 * A thread's turns as `thread/read` returns them, with every item of an ended turn in a final state (the
 * running turn is left as it is).
 */
export function settledTurns<Turn extends { id: string; status: unknown; items: unknown[] }>(
  turns: Turn[],
  activeTurnId: string | null,
): Turn[] {
  return turns.map((turn) => {
    if (turn.id === activeTurnId || turn.status === 'inProgress') return turn;
    const items = turn.items.map((item) =>
      (item as Item).status === 'inProgress' ? { ...(item as Item), status: finalItemStatus(turn.status) } : item,
    );
    return { ...turn, items };
  });
}

/**
 * Which principal a running agent turn acts for. A customer's app-server calls our `/v1` with its runtime
 * credential, which on its own would bill the wallet under no key policy at all. Every model request Codex makes
 * during a turn names its thread (`x-codex-turn-metadata`), so the gateway can police and bill that request as
 * the key that started the turn: its allowed models, spending limit and period, rate-limit plan, and its usage.
 *
 * The agent side binds a thread before it sends `turn/start` and the binding holds while that thread has a turn
 * starting or running (read from the thread's own turn state, so a turn that ended releases it without a second
 * bookkeeping path). A runtime request that names no busy thread of its own customer is refused.
 */
import { AppError } from '../kernel/errors.js';
import type { AgentTurnRef, CustomerPrincipal } from './principal.js';

/** The part of a thread's turn state the binding reads (see agent/thread-state.ts). */
export interface TurnActivity {
  customerId: number;
  activeTurnId: string | null;
  starting: boolean;
}

interface Binding {
  activity: TurnActivity;
  /** The key that started the running turn; null when an operator started it (billed to the wallet as before). */
  principal: CustomerPrincipal | null;
}

/** Header Codex sends on every model request of a turn: JSON with `thread_id`, `turn_id`, `request_kind`, … */
export const TURN_METADATA_HEADER = 'x-codex-turn-metadata';

/** Longest metadata header read; Codex's is about 300 bytes. */
const METADATA_LENGTH_MAX = 4096;

export class TurnPrincipals {
  private readonly bindings = new Map<string, Binding>();

  /** Binds the thread's turns to `principal` (the starter of the turn about to start). */
  bind(threadId: string, activity: TurnActivity, principal: CustomerPrincipal | null): void {
    this.bindings.set(threadId, { activity, principal });
  }

  /** Forgets a thread that is no longer loaded. */
  /** Turns starting or running on this node (metrics). */
  runningCount(): number {
    let count = 0;
    for (const { activity } of this.bindings.values()) if (activity.activeTurnId !== null || activity.starting) count += 1;
    return count;
  }

  unbind(threadId: string): void {
    this.bindings.delete(threadId);
  }

  /**
   * The principal a runtime credential's request acts as: the starter of the named thread's running turn (marked
   * with `agentTurn`), or the runtime principal itself for operator-started turns. 403 when the request names no
   * starting or running turn of the credential's customer.
   */
  resolve(runtime: CustomerPrincipal, metadataHeader: string | string[] | undefined): CustomerPrincipal {
    const threadId = threadIdOf(metadataHeader);
    const binding = threadId === undefined ? undefined : this.bindings.get(threadId);
    const activity = binding?.activity;
    if (!binding || !activity || activity.customerId !== runtime.customerId || (activity.activeTurnId === null && !activity.starting)) {
      throw new AppError('FORBIDDEN', 'Agent runtime credentials are accepted only for a running turn of their own customer', {
        details: { code: 'no_running_turn' },
      });
    }
    const agentTurn: AgentTurnRef = { threadId: threadId! };
    return binding.principal === null ? { ...runtime, agentTurn } : { ...binding.principal, agentTurn };
  }
}

function threadIdOf(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.length > METADATA_LENGTH_MAX) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    if (parsed === null || typeof parsed !== 'object') return undefined;
    const threadId = (parsed as { thread_id?: unknown }).thread_id;
    return typeof threadId === 'string' && threadId.length > 0 ? threadId : undefined;
  } catch {
    return undefined;
  }
}

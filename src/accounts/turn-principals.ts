/**
 * Which principal a running agent turn acts for, and the per-turn credential that proves a model request belongs
 * to that turn. A customer's app-server calls our `/v1` with its runtime key, which only says "this customer's
 * app-server"; every model request Codex makes during a turn carries `x-codex-turn-metadata`, so the gateway can
 * police and bill that request as the key that started the turn: its allowed models, spending limit and period,
 * rate-limit plan, and its usage.
 *
 * The thread named in that header is not trusted on its own (an agent command holding the runtime key could name
 * another running thread of the same customer). Each turn start mints a fresh random credential bound to one
 * thread, which the app-server is handed with `turn/start` (`responsesapiClientMetadata`, flattened by Codex into
 * the same header). A runtime request is accepted only when its credential is the one minted for the thread it
 * names and that thread's turn is still starting or running; a turn that ended (or a later turn on the thread)
 * voids it. Only a SHA-256 of each credential is kept.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../kernel/errors.js';
import type { AgentTurnRef, CustomerPrincipal } from './principal.js';

/** The part of a thread's turn state the binding reads (see agent/thread-state.ts). */
export interface TurnActivity {
  customerId: number;
  activeTurnId: string | null;
  starting: boolean;
}

interface Binding {
  threadId: string;
  activity: TurnActivity;
  /** The key that started the running turn; null when an operator started it (billed to the wallet as before). */
  principal: CustomerPrincipal | null;
  /** The turn this credential was minted for, once `turn/start` answered (null while it starts). */
  turnId: string | null;
}

/** Header Codex sends on every model request of a turn: JSON with `thread_id`, `turn_id`, `request_kind`, … */
export const TURN_METADATA_HEADER = 'x-codex-turn-metadata';

/** The `responsesapiClientMetadata` entry (and so the header's JSON key) that carries the turn credential. */
export const TURN_CREDENTIAL_KEY = 'switchyard_turn_credential';

/** Longest metadata header read; Codex's is about 300 bytes (plus the credential). */
const METADATA_LENGTH_MAX = 4096;

/** What a turn start hands the app-server: the `responsesapiClientMetadata` of its `turn/start`. */
export interface TurnCredential {
  metadata: Record<string, string>;
}

const digest = (credential: string) => createHash('sha256').update(credential).digest('base64url');

function refuse(message: string, code: string): AppError {
  return new AppError('FORBIDDEN', message, { details: { code } });
}

export class TurnPrincipals {
  /** Credential digest → binding. At most one per thread: a new turn start voids the thread's previous one. */
  private readonly byDigest = new Map<string, Binding>();
  private readonly digestOfThread = new Map<string, string>();

  /** Binds the thread's next turn to `principal` (the starter of the turn about to start) under a fresh credential. */
  bind(threadId: string, activity: TurnActivity, principal: CustomerPrincipal | null): TurnCredential {
    this.unbind(threadId);
    const credential = randomBytes(32).toString('base64url');
    const key = digest(credential);
    this.byDigest.set(key, { threadId, activity, principal, turnId: null });
    this.digestOfThread.set(threadId, key);
    return { metadata: { [TURN_CREDENTIAL_KEY]: credential } };
  }

  /** `turn/start` answered: the credential belongs to this turn only (a turn the app-server starts itself gets none). */
  started(threadId: string, turnId: string): void {
    const key = this.digestOfThread.get(threadId);
    const binding = key === undefined ? undefined : this.byDigest.get(key);
    if (binding) binding.turnId = turnId;
  }

  /** Turns starting or running on this node (metrics). */
  runningCount(): number {
    let count = 0;
    for (const { activity } of this.byDigest.values()) if (activity.activeTurnId !== null || activity.starting) count += 1;
    return count;
  }

  /** Voids the thread's credential (a failed start, a thread no longer loaded). */
  unbind(threadId: string): void {
    const key = this.digestOfThread.get(threadId);
    if (key === undefined) return;
    this.digestOfThread.delete(threadId);
    this.byDigest.delete(key);
  }

  /**
   * The principal a runtime credential's request acts as: the starter of the named thread's running turn (marked
   * with `agentTurn`), or the runtime principal itself for operator-started turns. 403 unless the request carries
   * the credential minted for the thread it names, of the runtime's own customer, while that turn starts or runs.
   */
  resolve(runtime: CustomerPrincipal, metadataHeader: string | string[] | undefined): CustomerPrincipal {
    const metadata = metadataOf(metadataHeader);
    const binding = metadata?.credential === undefined ? undefined : this.byDigest.get(digest(metadata.credential));
    if (!metadata || !binding || binding.activity.customerId !== runtime.customerId || !isRunning(binding)) {
      throw refuse('Agent runtime credentials are accepted only for a running turn of their own customer', 'no_running_turn');
    }
    if (binding.threadId !== metadata.threadId) {
      throw refuse('This turn credential belongs to another thread', 'turn_credential_mismatch');
    }
    const agentTurn: AgentTurnRef = { threadId: binding.threadId, turnId: binding.turnId ?? binding.activity.activeTurnId };
    return binding.principal === null ? { ...runtime, agentTurn } : { ...binding.principal, agentTurn };
  }
}

/** Starting, or running the very turn the credential was minted for. */
function isRunning(binding: Binding): boolean {
  const { activity, turnId } = binding;
  if (activity.starting) return true;
  return activity.activeTurnId !== null && (turnId === null || activity.activeTurnId === turnId);
}

function metadataOf(header: string | string[] | undefined): { threadId: string; credential?: string } | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  if (value === undefined || value.length > METADATA_LENGTH_MAX) return undefined;
  try {
    const parsed = JSON.parse(value) as unknown;
    if (parsed === null || typeof parsed !== 'object') return undefined;
    const { thread_id: threadId, [TURN_CREDENTIAL_KEY]: credential } = parsed as Record<string, unknown>;
    if (typeof threadId !== 'string' || threadId.length === 0) return undefined;
    return { threadId, ...(typeof credential === 'string' && credential.length > 0 ? { credential } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * Codex repeats the turn metadata in the Responses body (`client_metadata["x-codex-turn-metadata"]`), which a
 * native destination would pass on: the credential is taken out of it, so it never leaves this service.
 */
export function scrubTurnCredential(body: unknown): void {
  if (body === null || typeof body !== 'object') return;
  const clientMetadata = (body as { client_metadata?: unknown }).client_metadata;
  if (clientMetadata === null || typeof clientMetadata !== 'object') return;
  const holder = clientMetadata as Record<string, unknown>;
  const text = holder[TURN_METADATA_HEADER];
  if (typeof text !== 'string' || !text.includes(TURN_CREDENTIAL_KEY)) return;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    delete parsed[TURN_CREDENTIAL_KEY];
    holder[TURN_METADATA_HEADER] = JSON.stringify(parsed);
  } catch {
    delete holder[TURN_METADATA_HEADER];
  }
}

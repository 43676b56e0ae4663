/**
 * A turn's `networkAccess` inside the service's own sandbox. With the seccomp filter in force Codex's command
 * sandbox runs in its Landlock mode, which cannot enforce a `workspaceWrite` policy (Codex refuses every command
 * of such a turn: "permission profiles requiring direct runtime enforcement are incompatible with
 * --use-legacy-landlock"). Such a turn is handed to the app-server as `externalSandbox` — the sandbox around the
 * app-server is the boundary: writes are confined to the customer's workspaces, its Codex home and capped
 * temporary folders, and the only way out of its network namespace is the egress proxy. The network half of the
 * policy is kept by this gate: while a turn of a customer runs without network access, the egress proxy (one per
 * customer, not per turn) refuses every connection of that customer, so nothing a command of that turn (or a
 * process left by an earlier one) starts reaches outside.
 */
import type { SandboxPolicy } from '../appserver/protocol.js';
import type { TurnPermissions } from './permissions.js';

export class TurnNetworkGate {
  /** customer id → turns (or starts not yet answered) running without network access. */
  private readonly closed = new Map<number, Set<object | string>>();
  /** Turns that completed before their start was answered (kept until the answer comes, a few at most). */
  private readonly completedEarly = new Set<string>();

  /** Holds the customer's egress closed until `release` (a turn start on its way); returns its handle. */
  hold(customerId: number): object {
    const handle = {};
    this.add(customerId, handle);
    return handle;
  }

  /** The start answered with `turnId` (or null when it failed): the hold now lasts until that turn completes. */
  started(customerId: number, handle: object, turnId: string | null): void {
    if (turnId !== null && !this.completedEarly.delete(turnId)) this.add(customerId, turnId);
    this.remove(customerId, handle);
  }

  /** A turn of the customer completed. */
  completed(customerId: number, turnId: string): void {
    const keys = this.closed.get(customerId);
    if (keys?.has(turnId)) return this.remove(customerId, turnId);
    // A start still on its way may be this turn's: remembered so its answer does not close the egress for good.
    if (keys && [...keys].some((key) => typeof key === 'object')) {
      if (this.completedEarly.size >= 1_000) this.completedEarly.clear();
      this.completedEarly.add(turnId);
    }
  }

  /** The customer's app-server stopped or crashed: none of its turns runs any more. */
  ended(customerId: number): void {
    this.closed.delete(customerId);
  }

  /** Why the customer's egress is refused now, or null when it is not. */
  refusal(customerId: number): string | null {
    return this.closed.has(customerId) ? 'network access is off for the running turn (sandboxPolicy networkAccess: false)' : null;
  }

  private add(customerId: number, key: object | string): void {
    const keys = this.closed.get(customerId) ?? new Set();
    keys.add(key);
    this.closed.set(customerId, keys);
  }

  private remove(customerId: number, key: object | string): void {
    const keys = this.closed.get(customerId);
    if (!keys) return;
    keys.delete(key);
    if (keys.size === 0) this.closed.delete(customerId);
  }
}

/** The built-in profile that means workspaceWrite without network access (`agent-views.ts`). */
const WORKSPACE_PROFILE = ':workspace';

/** Whether a turn with these permissions may use the network (the spec's `networkAccess`; of the profiles, `:workspace` has none, the others leave it to Codex). */
export function turnDeniesNetwork(permissions: TurnPermissions): boolean {
  const policy = permissions.sandboxPolicy;
  if (!policy) return permissions.permissions === WORKSPACE_PROFILE;
  if (policy.type === 'dangerFullAccess') return false;
  if (policy.type === 'externalSandbox') return policy.networkAccess !== 'enabled';
  return !policy.networkAccess;
}

/**
 * The permissions sent to an app-server whose command sandbox runs in Landlock mode: a `workspaceWrite` policy
 * or the `:workspace` profile (which that mode cannot enforce) becomes `externalSandbox` with the same network
 * access; anything else is sent as it is.
 */
export function forLandlockMode(permissions: TurnPermissions): TurnPermissions {
  const policy = permissions.sandboxPolicy;
  // The built-in workspace profile is workspaceWrite without network: the same hand-over.
  if (!policy && permissions.permissions === WORKSPACE_PROFILE)
    return { sandboxPolicy: { type: 'externalSandbox', networkAccess: 'restricted' } };
  if (policy?.type !== 'workspaceWrite') return permissions;
  const external: SandboxPolicy = { type: 'externalSandbox', networkAccess: policy.networkAccess ? 'enabled' : 'restricted' };
  return { ...permissions, sandboxPolicy: external };
}

/** Starts a turn without network access: the customer's egress is closed before the start and stays so until it completes. */
export async function withoutNetwork<T extends { turn: { id: string } }>(
  gate: TurnNetworkGate,
  customerId: number,
  start: () => Promise<T>,
): Promise<T> {
  const handle = gate.hold(customerId);
  let turnId: string | null = null;
  try {
    const result = await start();
    turnId = result.turn.id;
    return result;
  } finally {
    gate.started(customerId, handle, turnId);
  }
}

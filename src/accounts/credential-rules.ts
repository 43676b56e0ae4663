/**
 * What a credential may become: the one table of sensitive actions (those that mint, widen or take over
 * credentials) against the kinds of credential a caller can hold. Routes name their action in `config.sensitive`
 * (http/route-config.ts) and the check in http/caller.ts answers from this table only; docs/security.md prints
 * the same table and test/accounts/credential-table.test.ts tries every cell of it through HTTP.
 *
 * The rule behind the table: only the System Token (and its unrestricted equivalents, the username token and a
 * CLI login key) or a dashboard session whose password or authenticator code was checked recently may do these
 * things. A User API Key never may, whatever its surfaces, nor the agent runtime's key, nor a session opened from
 * a link until the person behind it signs in again with the password.
 */
import type { KeyPolicy, Principal } from './principal.js';
import { isSessionPrincipal } from './sessions.js';

export const SENSITIVE_ACTIONS = [
  'mint-sso-link',
  'create-key',
  'change-key',
  'revoke-key',
  'replace-key',
  'rotate-username-token',
  'change-email',
  'change-password',
  'enrol-2fa',
  'remove-2fa',
] as const;
export type SensitiveAction = (typeof SENSITIVE_ACTIONS)[number];

export const CREDENTIAL_KINDS = [
  'system-token',
  'username-token',
  'user-key',
  'restricted-user-key',
  'runtime-key',
  'session-recent',
  'session-stale',
  'session-from-link',
  'operator',
] as const;
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number];

/** Who may: the kinds allowed for each action; every kind not listed is refused. */
const ACCOUNT_HOLDER: readonly CredentialKind[] = ['system-token', 'username-token', 'session-recent'];
export const CREDENTIAL_TABLE: Record<SensitiveAction, readonly CredentialKind[]> = {
  'mint-sso-link': ACCOUNT_HOLDER,
  'create-key': ACCOUNT_HOLDER,
  'change-key': ACCOUNT_HOLDER,
  'revoke-key': ACCOUNT_HOLDER,
  'replace-key': ACCOUNT_HOLDER,
  'rotate-username-token': ACCOUNT_HOLDER,
  'change-email': ACCOUNT_HOLDER,
  'change-password': ACCOUNT_HOLDER,
  'enrol-2fa': ACCOUNT_HOLDER,
  'remove-2fa': ACCOUNT_HOLDER,
};

export function mayPerform(kind: CredentialKind, action: SensitiveAction): boolean {
  return CREDENTIAL_TABLE[action].includes(kind);
}

/** A User API Key is restricted when its policy narrows anything at all. */
function restricts(policy: KeyPolicy): boolean {
  return (
    policy.surfaces !== undefined ||
    policy.models !== undefined ||
    policy.spendingLimitMicros !== undefined ||
    policy.rateLimitPlan !== undefined ||
    policy.rpc === true
  );
}

/** The kind of credential behind a principal; `recentMs` is how recent a session's password check must be. */
export function credentialKindOf(principal: Principal, nowMs: number, recentMs: number): CredentialKind {
  if (principal.kind === 'operator') return 'operator';
  if (isSessionPrincipal(principal)) {
    const { authenticatedAt } = principal.session;
    if (authenticatedAt === null) return 'session-from-link';
    return nowMs - authenticatedAt <= recentMs ? 'session-recent' : 'session-stale';
  }
  if (principal.policy.agentRuntime === true) return 'runtime-key';
  if (principal.keyKind === 'wallet') return 'system-token';
  if (principal.keyKind === 'username') return 'username-token';
  return restricts(principal.policy) ? 'restricted-user-key' : 'user-key';
}

/** The refusal's words for each kind (403; a stale session is told how to get through). */
export function refusalFor(kind: CredentialKind): { message: string; reauthenticate: boolean } {
  switch (kind) {
    case 'session-stale':
    case 'session-from-link':
      return {
        message: 'Confirm your password first (POST /api/v1/auth/reauthenticate): this needs a recent sign-in',
        reauthenticate: true,
      };
    case 'operator':
      return { message: 'This route needs a customer key', reauthenticate: false };
    default:
      return { message: 'This needs the System Token or a dashboard session with a recent sign-in', reauthenticate: false };
  }
}

/** The table as docs/security.md prints it (a test keeps the two the same). */
export function credentialTableMarkdown(): string {
  const lines = [`| action | ${CREDENTIAL_KINDS.join(' | ')} |`, `|---|${CREDENTIAL_KINDS.map(() => '---').join('|')}|`];
  for (const action of SENSITIVE_ACTIONS) {
    lines.push(`| ${action} | ${CREDENTIAL_KINDS.map((kind) => (mayPerform(kind, action) ? 'yes' : 'no')).join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Pending approvals of a project's running turn: accept, accept for the session, or decline. */
import { useState } from 'preact/hooks';
import { api } from '../../shared/api';
import { Notice } from '../../shared/ui';

export interface Approval {
  request_id: string;
  kind: string;
  status: string;
  command: string | string[] | null;
  cwd: string | null;
  reason: string | null;
  changes: unknown;
  available_decisions: unknown;
}

function commandText(command: Approval['command']): string {
  return Array.isArray(command) ? command.join(' ') : (command ?? '');
}

function changedPaths(changes: unknown): string {
  if (Array.isArray(changes)) return changes.map((change: { path?: string }) => change.path ?? '').join(', ');
  if (changes && typeof changes === 'object') return Object.keys(changes).join(', ');
  return '';
}

export function Approvals({ base, approvals, onChanged }: { base: string; approvals: Approval[]; onChanged: () => Promise<void> }) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  if (approvals.length === 0 && !error) return null;

  const resolve = async (approval: Approval, decision: 'accept' | 'acceptForSession' | 'decline') => {
    setBusy(approval.request_id);
    setError(null);
    try {
      await api.post(`${base}/approvals/${encodeURIComponent(approval.request_id)}/resolve`, { decision });
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
      await onChanged();
    }
  };

  return (
    <section class="card" aria-labelledby="approvals-title">
      <h2 id="approvals-title">Waiting for your approval</h2>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {approvals.map((approval) => (
        <div class="approval" key={approval.request_id} data-testid="approval">
          <p>
            <strong>
              {approval.kind === 'commandExecution' ? 'Run a command' : approval.kind === 'fileChange' ? 'Change files' : approval.kind}
            </strong>
            {approval.reason ? <span class="muted"> — {approval.reason}</span> : null}
          </p>
          {approval.command ? <pre>{commandText(approval.command)}</pre> : null}
          {approval.changes ? <p class="muted">Files: {changedPaths(approval.changes)}</p> : null}
          <div class="row">
            <button type="button" disabled={busy !== null} onClick={() => void resolve(approval, 'accept')}>
              Accept
            </button>
            <button type="button" class="secondary" disabled={busy !== null} onClick={() => void resolve(approval, 'acceptForSession')}>
              Accept for session
            </button>
            <button type="button" class="danger" disabled={busy !== null} onClick={() => void resolve(approval, 'decline')}>
              Decline
            </button>
          </div>
        </div>
      ))}
    </section>
  );
}

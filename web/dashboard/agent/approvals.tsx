/**
 * Pending approvals of a project's running turn, shown inline at the end of the transcript (where the user is
 * looking): accept, accept for the session, or decline. A new approval takes the focus and is announced.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { call, client, type Answer } from '../../shared/api';
import { Notice } from '../../shared/ui';
import { commandText } from './transcript';

/** A pending approval; `item_id` is the transcript item it is for (a command or a file change). */
export type Approval = Answer<'/api/v1/projects/{projectId}/approvals'>['data'][number];

/** `cwd` and `reason` are the agent's own values (any JSON): shown when they are text. */
function textOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

function changedPaths(changes: unknown): string {
  if (Array.isArray(changes)) return changes.map((change: { path?: string }) => change.path ?? '').join(', ');
  if (changes && typeof changes === 'object') return Object.keys(changes).join(', ');
  return '';
}

/** What the approval asks, in words (for the card's heading and the announcement). */
export function approvalSummary(approval: Approval): string {
  if (approval.kind === 'fileChange') return `Change files: ${changedPaths(approval.changes)}`;
  if (approval.kind === 'commandExecution') return `Run a command: ${commandText(approval.command)}`;
  return 'Allow an action';
}

function ApprovalCard(props: { approval: Approval; busy: boolean; focus: boolean; onDecide: (decision: Decision) => void }) {
  const { approval, busy } = props;
  const reason = textOf(approval.reason);
  const cwd = textOf(approval.cwd);
  const card = useRef<HTMLLIElement>(null);
  const titleId = `approval-${approval.request_id}`;
  useEffect(() => {
    if (!props.focus || !card.current) return;
    card.current.scrollIntoView({ block: 'nearest' });
    card.current.focus({ preventScroll: true });
  }, [props.focus]);
  return (
    <li class="approval" data-testid="approval" ref={card} tabIndex={-1} aria-labelledby={titleId}>
      <span class="who" id={titleId}>
        Approval needed ·{' '}
        {approval.kind === 'fileChange' ? 'Change files' : approval.kind === 'commandExecution' ? 'Run a command' : 'Action'}
      </span>
      {reason ? <p class="muted">{reason}</p> : null}
      {approval.command ? <pre>{commandText(approval.command)}</pre> : null}
      {cwd && cwd !== '.' ? <p class="muted">In {cwd}</p> : null}
      {approval.changes ? <p class="muted">Files: {changedPaths(approval.changes)}</p> : null}
      <div class="row">
        <button type="button" disabled={busy} onClick={() => props.onDecide('accept')}>
          Accept
        </button>
        <button type="button" class="secondary" disabled={busy} onClick={() => props.onDecide('acceptForSession')}>
          Accept for session
        </button>
        <button type="button" class="danger" disabled={busy} onClick={() => props.onDecide('decline')}>
          Decline
        </button>
      </div>
    </li>
  );
}

type Decision = 'accept' | 'acceptForSession' | 'decline';

/** The approval cards, as items of the transcript list. */
export function InlineApprovals({
  projectId,
  approvals,
  onChanged,
}: {
  projectId: string;
  approvals: Approval[];
  onChanged: () => Promise<void>;
}) {
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const seen = useRef(new Set<string>());
  // The newest approval not seen before takes the focus (once).
  const fresh = approvals.find((approval) => !seen.current.has(approval.request_id))?.request_id ?? null;
  useEffect(() => {
    for (const approval of approvals) seen.current.add(approval.request_id);
  }, [approvals]);

  const resolve = async (approval: Approval, decision: Decision) => {
    setBusy(approval.request_id);
    setError(null);
    try {
      await call(() =>
        client.POST('/api/v1/projects/{projectId}/approvals/{requestId}/resolve', {
          params: { path: { projectId, requestId: approval.request_id } },
          body: { decision },
        }),
      );
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
      await onChanged();
    }
  };

  return (
    <>
      {error ? (
        <li class="notice">
          <Notice kind="error">{error}</Notice>
        </li>
      ) : null}
      {approvals.map((approval) => (
        <ApprovalCard
          key={approval.request_id}
          approval={approval}
          busy={busy !== null}
          focus={approval.request_id === fresh}
          onDecide={(decision) => void resolve(approval, decision)}
        />
      ))}
    </>
  );
}

/**
 * The live agent view of one project: the transcript streamed from the SSE route (the EventSource reconnects
 * on its own and resumes with `Last-Event-ID`), pending approvals, the prompt box, interrupt, and the files.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, call, client } from '../../shared/api';
import { usd } from '../../shared/format';
import { Card, Field, Notice } from '../../shared/ui';
import { projectTitle, type ProjectSummary } from './project-title';
import { approvalSummary, InlineApprovals, type Approval } from './approvals';
import { FilesPanel } from './files';
import { PromptBox, type TurnDefaults } from './prompt';
import { applyEvent, EMPTY, EVENT_TYPES, humanize, STATUS_LABELS, type Entry, type FileChange, type Transcript } from './transcript';

const WHO: Record<Entry['kind'], string> = {
  user: 'You',
  agent: 'Agent',
  command: 'Command',
  file: 'File change',
  reasoning: 'Reasoning',
  notice: 'Event',
  reset: 'Reset',
  other: 'Item',
  billing: 'Credit',
};

/** A diff, line by line: additions and removals marked for the eye (colour) and for screen readers (the sign). */
function Diff({ change }: { change: FileChange }) {
  const lines = change.kind === 'add' ? change.diff.split('\n').map((line) => (line === '' ? line : `+${line}`)) : change.diff.split('\n');
  return (
    <pre class="diff" data-testid="diff">
      {lines.map((line, index) => (
        <span key={index} class={line.startsWith('+') ? 'add' : line.startsWith('-') ? 'del' : line.startsWith('@@') ? 'hunk' : undefined}>
          {line}
          {'\n'}
        </span>
      ))}
    </pre>
  );
}

function FileChangeEntry({ entry }: { entry: Entry }) {
  const changes = entry.changes ?? [];
  const verb: Record<string, string> = { add: 'added', delete: 'deleted', update: 'changed' };
  return (
    <>
      <ul class="changed-files">
        {changes.map((change) => (
          <li key={change.path}>
            <code>{change.path}</code> <span class="muted">{verb[change.kind] ?? change.kind}</span>
          </li>
        ))}
      </ul>
      {changes.some((change) => change.diff) ? (
        <details>
          <summary>Show the diff</summary>
          {changes.map((change) => (
            <div key={change.path}>
              <p class="diff-path">{change.path}</p>
              <Diff change={change} />
            </div>
          ))}
        </details>
      ) : null}
    </>
  );
}

function TranscriptEntry({ entry, waiting }: { entry: Entry; waiting: boolean }) {
  const status = waiting
    ? 'waiting for your approval'
    : entry.status
      ? (STATUS_LABELS[entry.status] ?? humanize(entry.status, STATUS_LABELS))
      : '';
  return (
    <li class={entry.kind} data-kind={entry.kind} data-status={entry.status || undefined}>
      <span class="who">
        {entry.label ?? WHO[entry.kind]}
        {status ? ` · ${status}` : ''}
      </span>
      {entry.kind === 'command' ? <code>{entry.text}</code> : entry.kind === 'file' ? <FileChangeEntry entry={entry} /> : null}
      {entry.kind !== 'command' && entry.kind !== 'file' && entry.text ? <p class="text">{entry.text}</p> : null}
      {entry.kind === 'billing' ? (
        <p>
          <a href="#/money">Add credit or check your limits on the Money page</a>
        </p>
      ) : null}
      {entry.detail ? <pre>{entry.detail}</pre> : null}
    </li>
  );
}

function ProjectHeader(props: {
  projectId: string;
  project: ProjectSummary | null;
  onRenamed: (project: ProjectSummary) => void;
  busy: boolean;
}) {
  const { project } = props;
  const path = { projectId: props.projectId };
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const rename = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const body = { name: name.trim() === '' ? null : name.trim() };
      props.onRenamed(await call(() => client.PATCH('/api/v1/projects/{projectId}', { params: { path }, body })));
      setEditing(false);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  const remove = async () => {
    if (!project || !confirm(`Delete “${projectTitle(project)}” with all its files and history? This cannot be undone.`)) return;
    setError(null);
    try {
      await call(() => client.DELETE('/api/v1/projects/{projectId}', { params: { path } }));
      location.hash = '#/projects';
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  return (
    <>
      <h1>{project ? projectTitle(project) : 'Project'}</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      {project && editing ? (
        <form class="row" onSubmit={rename}>
          <Field label="Project name" value={name} onValue={setName} maxLength={200} hint="Leave it empty to remove the name." />
          <button type="submit">Save name</button>
          <button type="button" class="secondary" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : project ? (
        <p class="row">
          <button
            type="button"
            class="secondary"
            onClick={() => {
              setName(project.name ?? '');
              setEditing(true);
            }}
          >
            Rename
          </button>
          <button type="button" class="danger" disabled={props.busy} onClick={() => void remove()}>
            Delete project
          </button>
        </p>
      ) : null}
    </>
  );
}

/** The page title carries a badge while approvals wait, so a background tab shows it too. */
function useTitleBadge(title: string | null, pending: number): void {
  useEffect(() => {
    if (title === null) return;
    document.title = `${pending > 0 ? `(${pending}) Approval needed · ` : ''}${title} · Projects · Switchyard`;
  }, [title, pending]);
}

export function ProjectLive({ projectId }: { projectId: string }) {
  const [project, setProject] = useState<ProjectSummary | null>(null);
  const [defaults, setDefaults] = useState<TurnDefaults | null>(null);
  const [transcript, setTranscript] = useState<Transcript>(EMPTY);
  const [connected, setConnected] = useState(false);
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [balance, setBalance] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState(false);
  const [filesVersion, setFilesVersion] = useState(0);
  const log = useRef<HTMLOListElement>(null);
  const path = { projectId };

  const loadApprovals = async () => {
    try {
      setApprovals((await call(() => client.GET('/api/v1/projects/{projectId}/approvals', { params: { path } }))).data);
    } catch {
      /* the stream shows what happened; the list is refreshed on the next approval event */
    }
  };
  const loadBalance = async () => {
    try {
      setBalance((await call(() => client.GET('/api/v1/wallet/status'))).available.micros);
    } catch {
      setBalance(null);
    }
  };

  useEffect(() => {
    let source: EventSource | null = null;
    let stopped = false;
    (async () => {
      try {
        const read = await call(() => client.GET('/api/v1/projects/{projectId}', { params: { path } }));
        setProject(read);
        setDefaults(read.turn_defaults);
        await call(() => client.POST('/api/v1/projects/{projectId}/open', { params: { path }, body: {} }));
        if (stopped) return;
        setOpened(true);
      } catch (caught) {
        setError(caught instanceof ApiError && caught.status === 404 ? 'No such project.' : (caught as Error).message);
        return;
      }
      source = new EventSource(`/api/v1/projects/${encodeURIComponent(projectId)}/events?after=0`);
      source.onopen = () => setConnected(true);
      for (const type of EVENT_TYPES) {
        source.addEventListener(type, (event) => {
          if (!(event instanceof MessageEvent)) {
            setConnected(false);
            // The browser retries on its own unless the server refused the stream (signed out, project gone).
            if (source?.readyState === EventSource.CLOSED) setError('The live event stream was closed; reload the page to reconnect.');
            return;
          }
          let data: Record<string, unknown> = {};
          try {
            data = JSON.parse(String(event.data)) as Record<string, unknown>;
          } catch {
            /* not JSON: nothing to show */
          }
          setTranscript((current) => applyEvent(current, type, Number(event.lastEventId), data));
        });
      }
    })();
    void loadBalance();
    return () => {
      stopped = true;
      source?.close();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- one stream per project
  }, [projectId]);

  useEffect(() => {
    if (opened) void loadApprovals();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- reloads when the approvals change
  }, [opened, transcript.approvalsVersion]);

  const running = transcript.activeTurnId !== null;
  useEffect(() => {
    if (!running && opened) {
      void loadBalance();
      setFilesVersion((version) => version + 1);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs when a turn ends; the other values are read as they are then
  }, [running]);

  useEffect(() => {
    // Follow the newest entry (the list scrolls on its own, the page does not jump).
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [transcript.entries, approvals]);

  useTitleBadge(project ? projectTitle(project) : null, approvals.length);

  const interrupt = async () => {
    if (!transcript.activeTurnId) return;
    try {
      const turnId = transcript.activeTurnId;
      await call(() => client.POST('/api/v1/projects/{projectId}/turns/{turnId}/interrupt', { params: { path: { projectId, turnId } } }));
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <p>
        <a href="#/projects">← All projects</a>
      </p>
      <ProjectHeader projectId={projectId} project={project} onRenamed={setProject} busy={running} />
      {error ? <Notice kind="error">{error}</Notice> : null}
      <p class="row">
        <span role="status" data-testid="stream-status">
          <span class={`status-dot${connected ? ' live' : ''}`} aria-hidden="true" />
          {connected ? 'Live' : opened ? 'Reconnecting…' : 'Opening the project…'}
        </span>
        <span class="muted" data-testid="project-balance">
          Available balance {balance === null ? '—' : usd(balance)}
        </span>
      </p>
      {/* Announced at once, whatever has the focus: an approval stops the turn until someone answers it. */}
      <p class="visually-hidden" aria-live="assertive" aria-atomic="true" data-testid="approval-announcement">
        {approvals.length > 0 ? `Approval needed: ${approvalSummary(approvals[approvals.length - 1]!)}` : ''}
      </p>
      <div class="project-grid">
        <div>
          <Card title="Transcript">
            <div role="log" aria-live="polite" aria-label="Transcript">
              {/* It scrolls on its own: focusable, so the keyboard can scroll it too. */}
              <ol class="transcript" data-testid="transcript" ref={log} tabIndex={0}>
                {transcript.entries.map((entry) => (
                  <TranscriptEntry
                    key={entry.key}
                    entry={entry}
                    waiting={entry.status === 'inProgress' && approvals.some((approval) => approval.item_id === entry.key)}
                  />
                ))}
                <InlineApprovals projectId={projectId} approvals={approvals} onChanged={loadApprovals} />
                <li class="notice" hidden={transcript.entries.length > 0 || approvals.length > 0}>
                  Nothing yet: send a prompt to start.
                </li>
              </ol>
            </div>
          </Card>
          <Card title="New turn">
            <PromptBox projectId={projectId} defaults={defaults} disabled={!opened} running={running} onError={setError} />
            {running ? (
              <p>
                <button type="button" class="danger" onClick={interrupt}>
                  Interrupt the turn
                </button>
              </p>
            ) : null}
          </Card>
        </div>
        <FilesPanel projectId={projectId} version={filesVersion} />
      </div>
    </>
  );
}

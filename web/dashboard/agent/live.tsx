/**
 * The live agent view of one project: the transcript streamed from the SSE route (the EventSource reconnects
 * on its own and resumes with `Last-Event-ID`), pending approvals, the prompt box, interrupt, and the files.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError } from '../../shared/api';
import { usd } from '../../shared/format';
import { Card, Notice } from '../../shared/ui';
import { Approvals, type Approval } from './approvals';
import { FilesPanel } from './files';
import { PromptBox } from './prompt';
import { applyEvent, EMPTY, EVENT_TYPES, type Entry, type Transcript } from './transcript';

const WHO: Record<Entry['kind'], string> = {
  user: 'You',
  agent: 'Agent',
  command: 'Command',
  file: 'File change',
  reasoning: 'Reasoning',
  notice: 'Event',
  reset: 'Reset',
  other: 'Item',
};

function TranscriptEntry({ entry }: { entry: Entry }) {
  return (
    <li class={entry.kind} data-kind={entry.kind}>
      <span class="who">
        {WHO[entry.kind]}
        {entry.status ? ` · ${entry.status}` : ''}
      </span>
      {entry.kind === 'command' ? <code>{entry.text}</code> : <p class="text">{entry.text}</p>}
      {entry.detail ? <pre>{entry.detail}</pre> : null}
    </li>
  );
}

export function ProjectLive({ projectId }: { projectId: string }) {
  const [name, setName] = useState<string | null>(null);
  const [transcript, setTranscript] = useState<Transcript>(EMPTY);
  const [connected, setConnected] = useState(false);
  const [approvals, setApprovals] = useState<Approval[]>([]);
  const [balance, setBalance] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [opened, setOpened] = useState(false);
  const [filesVersion, setFilesVersion] = useState(0);
  const log = useRef<HTMLOListElement>(null);
  const base = `/api/v1/projects/${encodeURIComponent(projectId)}`;

  const loadApprovals = async () => {
    try {
      setApprovals((await api.get<{ data: Approval[] }>(`${base}/approvals`)).data);
    } catch {
      /* the stream shows what happened; the list is refreshed on the next approval event */
    }
  };
  const loadBalance = async () => {
    try {
      setBalance((await api.get<{ available: { micros: number } }>('/api/v1/wallet/status')).available.micros);
    } catch {
      setBalance(null);
    }
  };

  useEffect(() => {
    let source: EventSource | null = null;
    let stopped = false;
    (async () => {
      try {
        const project = await api.get<{ name: string | null }>(base);
        setName(project.name ?? projectId);
        await api.post(`${base}/open`, {});
        if (stopped) return;
        setOpened(true);
      } catch (caught) {
        setError(caught instanceof ApiError && caught.status === 404 ? 'No such project.' : (caught as Error).message);
        return;
      }
      source = new EventSource(`${base}/events?after=0`);
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
  }, [projectId]);

  useEffect(() => {
    if (opened) void loadApprovals();
  }, [opened, transcript.approvalsVersion]);

  const running = transcript.activeTurnId !== null;
  useEffect(() => {
    if (!running && opened) {
      void loadBalance();
      setFilesVersion((version) => version + 1);
    }
  }, [running]);

  useEffect(() => {
    // Follow the newest entry (the list scrolls on its own, the page does not jump).
    if (log.current) log.current.scrollTop = log.current.scrollHeight;
  }, [transcript.entries]);

  const interrupt = async () => {
    if (!transcript.activeTurnId) return;
    try {
      await api.post(`${base}/turns/${encodeURIComponent(transcript.activeTurnId)}/interrupt`, {});
    } catch (caught) {
      setError((caught as Error).message);
    }
  };

  return (
    <>
      <p>
        <a href="#/projects">← All projects</a>
      </p>
      <h1>{name ?? 'Project'}</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <p class="row">
        <span role="status" data-testid="stream-status">
          <span class={`status-dot${connected ? ' live' : ''}`} aria-hidden="true" />
          {connected ? 'Live' : opened ? 'Reconnecting…' : 'Opening the project…'}
        </span>
        <span class="muted" data-testid="project-balance">
          Available balance {balance === null ? '—' : usd(balance, 4)}
        </span>
      </p>
      <div class="project-grid">
        <div>
          <Approvals base={base} approvals={approvals} onChanged={loadApprovals} />
          <Card title="Transcript">
            <div role="log" aria-live="polite" aria-label="Transcript">
              {/* It scrolls on its own: focusable, so the keyboard can scroll it too. */}
              <ol class="transcript" data-testid="transcript" ref={log} tabIndex={0}>
                {transcript.entries.map((entry) => (
                  <TranscriptEntry key={entry.key} entry={entry} />
                ))}
                <li class="notice" hidden={transcript.entries.length > 0}>
                  Nothing yet: send a prompt to start.
                </li>
              </ol>
            </div>
          </Card>
          <Card title="New turn">
            <PromptBox base={base} disabled={!opened} running={running} onError={setError} />
            {running ? (
              <p>
                <button type="button" class="danger" onClick={interrupt}>
                  Interrupt the turn
                </button>
              </p>
            ) : null}
          </Card>
        </div>
        <FilesPanel base={base} version={filesVersion} />
      </div>
    </>
  );
}

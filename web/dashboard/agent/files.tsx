/**
 * The project's files: a tree and a viewer/editor, with download and delete of the open file. Saves send the ETag of the version that was loaded
 * (`If-Match`); when the file changed meanwhile the service answers 412 and the view shows the conflict,
 * keeping the edits, and never overwrites. New files are created with `If-None-Match: *`.
 */
import { useEffect, useId, useState } from 'preact/hooks';
import { ApiError, call, client, query, type Answer } from '../../shared/api';
import { Card, Field, Notice } from '../../shared/ui';

type TreeEntry = Answer<'/api/v1/projects/{projectId}/files/tree'>['entries'][number];

/** The file open in the editor: what the service answered, and the text last saved (the page's own state). */
interface OpenFile {
  path: string;
  etag: string;
  encoding: Answer<'/api/v1/projects/{projectId}/files/content'>['encoding'];
  saved: string;
}

type Status = { kind: 'ok' | 'error' | 'info'; text: string; conflict?: boolean } | null;

export function FilesPanel({ projectId, version }: { projectId: string; version: number }) {
  const project = { projectId };
  const [entries, setEntries] = useState<TreeEntry[] | null>(null);
  const [truncated, setTruncated] = useState(false);
  const [open, setOpen] = useState<OpenFile | null>(null);
  const [text, setText] = useState('');
  const [status, setStatus] = useState<Status>(null);
  const [newPath, setNewPath] = useState('');
  const editorId = useId();

  const loadTree = async () => {
    try {
      const tree = await call(() =>
        client.GET('/api/v1/projects/{projectId}/files/tree', { params: { path: project, query: { depth: 5, limit: 1000 } } }),
      );
      setEntries(tree.entries);
      setTruncated(tree.truncated);
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };
  // eslint-disable-next-line react-hooks/exhaustive-deps -- reloads when the project or its files change
  useEffect(() => void loadTree(), [projectId, version]);

  const openFile = async (path: string) => {
    setStatus(null);
    try {
      const file = await call(() =>
        client.GET('/api/v1/projects/{projectId}/files/content', { params: { path: project, query: { path } } }),
      );
      setOpen({ path: file.path, etag: file.etag, encoding: file.encoding, saved: file.content });
      setText(file.content);
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };

  const save = async () => {
    if (!open) return;
    try {
      const written = await call(() =>
        client.PUT('/api/v1/projects/{projectId}/files/content', {
          params: { path: project },
          body: { path: open.path, content: text, encoding: open.encoding },
          headers: { 'if-match': open.etag },
        }),
      );
      setOpen({ ...open, etag: written.etag, saved: text });
      setStatus({ kind: 'ok', text: `Saved ${open.path}.` });
      void loadTree();
    } catch (caught) {
      if (caught instanceof ApiError && (caught.status === 412 || caught.status === 409)) {
        setStatus({
          kind: 'error',
          conflict: true,
          text: `Conflict: ${open.path} changed since you opened it. Your edits were not saved; reload the file to see the current version (your edits will be replaced).`,
        });
      } else {
        setStatus({ kind: 'error', text: (caught as Error).message });
      }
    }
  };

  const create = async (event: Event) => {
    event.preventDefault();
    const path = newPath.trim();
    if (!path) return;
    try {
      await call(() =>
        client.PUT('/api/v1/projects/{projectId}/files/content', {
          params: { path: project },
          body: { path, content: '', encoding: 'utf8' },
          headers: { 'if-none-match': '*' },
        }),
      );
      setNewPath('');
      await loadTree();
      await openFile(path);
    } catch (caught) {
      const exists = caught instanceof ApiError && caught.status === 412;
      setStatus({ kind: 'error', text: exists ? `${path} already exists.` : (caught as Error).message });
    }
  };

  const remove = async (path: string) => {
    if (!confirm(`Delete ${path}? This cannot be undone.`)) return;
    try {
      await call(() => client.DELETE('/api/v1/projects/{projectId}/files/content', { params: { path: project, query: { path } } }));
      setOpen(null);
      setStatus({ kind: 'ok', text: `Deleted ${path}.` });
      await loadTree();
    } catch (caught) {
      setStatus({ kind: 'error', text: (caught as Error).message });
    }
  };

  const depthOf = (path: string) => Math.min(4, path.split('/').length - 1);

  return (
    <Card title="Files">
      <div class="row">
        <button type="button" class="secondary" onClick={() => void loadTree()}>
          Refresh files
        </button>
      </div>
      {entries === null ? (
        <p aria-busy="true">Loading…</p>
      ) : entries.length === 0 ? (
        <p class="muted">The workspace is empty.</p>
      ) : (
        <ul class="file-tree" aria-label="Workspace files">
          {entries.map((entry) => (
            <li key={entry.path}>
              {entry.type === 'file' ? (
                <button
                  type="button"
                  class={`d${depthOf(entry.path)}`}
                  aria-current={open?.path === entry.path ? 'true' : undefined}
                  onClick={() => void openFile(entry.path)}
                >
                  {entry.path.split('/').pop()}
                </button>
              ) : (
                <span class={`dir d${depthOf(entry.path)}`}>
                  {entry.path.split('/').pop()}
                  {entry.type === 'directory' ? '/' : entry.type === 'symlink' ? ' (link)' : ''}
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      {truncated ? <p class="muted">Only the first 1000 entries are shown.</p> : null}
      <form onSubmit={create} class="row">
        <Field label="New file path" value={newPath} onValue={setNewPath} placeholder="src/notes.md" />
        <button type="submit" class="secondary">
          Create file
        </button>
      </form>
      {status ? (
        <Notice kind={status.kind}>
          {status.text}
          {status.conflict && open ? (
            <>
              {' '}
              <button type="button" class="secondary" onClick={() => void openFile(open.path)}>
                Reload {open.path}
              </button>
            </>
          ) : null}
        </Notice>
      ) : null}
      {open ? (
        <p class="row">
          <a
            class="button secondary"
            href={`/api/v1/projects/${encodeURIComponent(projectId)}/files/download${query({ path: open.path })}`}
            download={open.path.split('/').pop()}
          >
            Download {open.path}
          </a>
          <button type="button" class="danger" onClick={() => void remove(open.path)}>
            Delete {open.path}
          </button>
        </p>
      ) : null}
      {open ? (
        open.encoding === 'base64' ? (
          <p class="muted">{open.path} is binary and is not shown.</p>
        ) : (
          <>
            <div class="field">
              <label for={editorId}>Editing {open.path}</label>
              <textarea
                id={editorId}
                class="editor"
                spellcheck={false}
                value={text}
                onInput={(event) => setText((event.currentTarget as HTMLTextAreaElement).value)}
              />
            </div>
            <button type="button" onClick={() => void save()} disabled={text === open.saved}>
              Save {open.path}
            </button>
          </>
        )
      ) : null}
    </Card>
  );
}

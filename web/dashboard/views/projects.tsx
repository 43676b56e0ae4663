/** Projects: the customer's managed projects (list, create) and, at `#/projects/<id>`, the live agent view. */
import '../agent/agent.css';
import { useEffect, useState } from 'preact/hooks';
import { call, client } from '../../shared/api';
import { dateTime } from '../../shared/format';
import { Card, Field, Notice } from '../../shared/ui';
import { ProjectLive } from '../agent/live';
import { projectTitle, type ProjectSummary } from '../agent/project-title';
import type { ViewProps } from './index';

export type { ProjectSummary };

function ProjectList() {
  const [projects, setProjects] = useState<ProjectSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = async (after: string | null) => {
    try {
      const page = await call(() =>
        client.GET('/api/v1/projects', { params: { query: { limit: 50, ...(after ? { cursor: after } : {}) } } }),
      );
      setProjects((current) => (after && current ? [...current, ...page.data] : page.data));
      setCursor(page.next_cursor);
    } catch (caught) {
      setError((caught as Error).message);
    }
  };
  useEffect(() => void load(null), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = name.trim() ? { name: name.trim() } : {};
      const created = await call(() => client.POST('/api/v1/projects', { body }));
      location.hash = `#/projects/${encodeURIComponent(created.id)}`;
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <h1>Projects</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Card title="New project">
        <form onSubmit={create}>
          <Field label="Project name (optional)" value={name} onValue={setName} maxLength={200} />
          <button type="submit" disabled={busy}>
            Create project
          </button>
        </form>
      </Card>
      <Card title="Your projects">
        {projects === null ? (
          <p aria-busy="true">Loading…</p>
        ) : projects.length === 0 ? (
          <p class="muted">No projects yet.</p>
        ) : (
          <ul class="project-list">
            {projects.map((project) => (
              <li key={project.id}>
                <a href={`#/projects/${encodeURIComponent(project.id)}`}>{projectTitle(project)}</a>
                <span class="muted">{dateTime(project.created_at)}</span>
              </li>
            ))}
          </ul>
        )}
        {cursor ? (
          <button type="button" class="secondary" onClick={() => void load(cursor)}>
            Show more
          </button>
        ) : null}
      </Card>
    </>
  );
}

export function ProjectsView({ params }: ViewProps) {
  return params[0] ? <ProjectLive key={params[0]} projectId={params[0]} /> : <ProjectList />;
}

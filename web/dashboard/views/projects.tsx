/** Projects: the customer's managed projects (list, create) and, at `#/projects/<id>`, the live agent view. */
import '../agent/agent.css';
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../../shared/api';
import { dateTime } from '../../shared/format';
import { Card, Field, Notice } from '../../shared/ui';
import { ProjectLive } from '../agent/live';
import type { ViewProps } from './index';

export interface ProjectSummary {
  id: string;
  name: string | null;
  created_at: number;
}

function ProjectList() {
  const [projects, setProjects] = useState<ProjectSummary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const load = async (after: string | null) => {
    try {
      const page = await api.get<{ data: ProjectSummary[]; next_cursor: string | null }>(
        `/api/v1/projects${query({ limit: 50, cursor: after })}`,
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
      const created = await api.post<ProjectSummary>('/api/v1/projects', name.trim() ? { name: name.trim() } : {});
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
                <a href={`#/projects/${encodeURIComponent(project.id)}`}>{project.name ?? project.id}</a>
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

/** Row types of managed projects and the project event log. Timestamps are epoch milliseconds. */

export interface ProjectsTable {
  /** Opaque id such as `prj_…`. */
  id: string;
  customer_id: number;
  name: string | null;
  /** Realpath of the project's workspace directory; fixed at creation. */
  workspace_dir: string;
  created_at: number;
}

export interface ProjectEventsTable {
  project_id: string;
  /** Monotonic per project, starting at 1; (project_id, seq) is the primary key. */
  seq: number;
  type: string;
  /** JSON text. */
  data: string;
  created_at: number;
}

export interface AgentProjectTables {
  projects: ProjectsTable;
  project_events: ProjectEventsTable;
}

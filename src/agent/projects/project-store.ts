/**
 * Managed projects: each project id is created together with its one workspace directory
 * `<dataDir>/workspaces/<customerId>/<projectId>`, whose realpath is stored and never changes.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Selectable } from 'kysely';
import type { Principal } from '../../accounts/principal.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, notFound, validationError } from '../../kernel/errors.js';
import { newId } from '../../kernel/ids.js';
import { makeFolders, removeTree } from '../../kernel/tenant-fs.js';
import type { Storage } from '../../storage/database.js';
import type { ProjectsTable } from '../../storage/tables/agent-projects.js';
import type { Project, ProjectStore } from './types.js';

export const PROJECT_ID_PATTERN = /^prj_[A-Za-z0-9]{24}$/;
export const PROJECT_NAME_LENGTH_MAX = 200;
/** Upper bound of one store read; the HTTP page size (1..100) is checked by the route. */
const LIST_LIMIT_MAX = 1_000;

/** A new name, trimmed; null clears it. Blank or overlong → 422 on `body.name`. */
function checkedName(name: string | null): string | null {
  if (name === null) return null;
  const trimmed = name.trim();
  if (trimmed.length < 1 || trimmed.length > PROJECT_NAME_LENGTH_MAX) {
    const msg = `A project name is 1..${PROJECT_NAME_LENGTH_MAX} characters and not only spaces`;
    throw validationError([{ loc: ['body', 'name'], msg, type: 'value_error' }]);
  }
  return trimmed;
}

function toProject(row: Selectable<ProjectsTable>): Project {
  return { id: row.id, customerId: row.customer_id, name: row.name, workspaceDir: row.workspace_dir, createdAt: row.created_at };
}

export class SqlProjectStore implements ProjectStore {
  private readonly workspacesRoot: string;

  constructor(
    private readonly storage: Storage,
    private readonly clock: Clock,
    dataDir: string,
  ) {
    this.workspacesRoot = path.resolve(dataDir, 'workspaces');
  }

  async create(customerId: number, name: string | null = null): Promise<Project> {
    if (name !== null && (name.length < 1 || name.length > PROJECT_NAME_LENGTH_MAX)) {
      throw new AppError('BAD_REQUEST', `Project name must be 1..${PROJECT_NAME_LENGTH_MAX} characters`);
    }
    const id = newId('prj');
    // The workspaces folder is the service's; below it every step is no-follow (the customer's folder is its agent's).
    await fs.mkdir(this.workspacesRoot, { recursive: true, mode: 0o755 });
    const workspaceDir = path.join(await fs.realpath(this.workspacesRoot), String(customerId), id);
    await (await makeFolders(workspaceDir)).close();
    const row = { id, customer_id: customerId, name, workspace_dir: workspaceDir, created_at: this.clock.nowMs() };
    try {
      await this.storage.db.insertInto('projects').values(row).execute();
    } catch (error) {
      // The row is the only owner of the folder: without it the folder must not linger.
      await removeTree(workspaceDir);
      throw error;
    }
    return toProject(row);
  }

  /** Newest first; `after` is the id of the last project of the previous page; customer null = every customer. */
  async list(customerId: number | null, options: { limit?: number; after?: string } = {}): Promise<Project[]> {
    const limit = Math.min(Math.max(options.limit ?? 25, 1), LIST_LIMIT_MAX);
    // Only managed projects (`prj_…`); the direct surface keeps its per-customer event stream rows here too.
    let query = this.storage.db.selectFrom('projects').selectAll().where('id', 'like', 'prj_%');
    if (customerId !== null) query = query.where('customer_id', '=', customerId);
    if (options.after !== undefined) {
      const cursor = PROJECT_ID_PATTERN.test(options.after)
        ? await this.storage.db
            .selectFrom('projects')
            .select(['id', 'created_at', 'customer_id'])
            .where('id', '=', options.after)
            .executeTakeFirst()
        : undefined;
      if (!cursor || (customerId !== null && cursor.customer_id !== customerId))
        throw validationError([{ loc: ['query', 'cursor'], msg: 'Unknown cursor', type: 'value_error' }]);
      query = query.where((eb) =>
        eb.or([eb('created_at', '<', cursor.created_at), eb.and([eb('created_at', '=', cursor.created_at), eb('id', '<', cursor.id)])]),
      );
    }
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
    return rows.map(toProject);
  }

  async requireOwned(principal: Principal, projectId: string): Promise<Project> {
    if (!PROJECT_ID_PATTERN.test(projectId)) throw notFound('Project');
    const row = await this.storage.db.selectFrom('projects').selectAll().where('id', '=', projectId).executeTakeFirst();
    if (!row) throw notFound('Project');
    if (principal.kind === 'customer' && row.customer_id !== principal.customerId) throw notFound('Project');
    return toProject(row);
  }

  async rename(project: Project, requested: string | null): Promise<Project> {
    const name = checkedName(requested);
    await this.storage.db.updateTable('projects').set({ name }).where('id', '=', project.id).execute();
    return { ...project, name };
  }

  async linkedCoderProject(projectId: string): Promise<string | null> {
    const row = await this.storage.db
      .selectFrom('desktop_coder_projects')
      .select('name')
      .where('project_id', '=', projectId)
      .executeTakeFirst();
    return row?.name ?? null;
  }

  async remove(project: Project): Promise<void> {
    await this.storage.db.transaction().execute(async (trx) => {
      for (const table of ['agent_turn_requests', 'agent_approvals', 'agent_project_threads', 'project_events'] as const) {
        await trx.deleteFrom(table).where('project_id', '=', project.id).execute();
      }
      await trx.deleteFrom('projects').where('id', '=', project.id).execute();
    });
    // Only a folder under this store's root is ever removed, whatever the row said.
    const root = await fs.realpath(this.workspacesRoot).catch(() => this.workspacesRoot);
    const relative = path.relative(root, project.workspaceDir);
    if (relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative)) {
      // No-follow and, under a sandbox uid, as that uid: a folder swapped for a link never redirects the delete.
      await removeTree(project.workspaceDir);
    }
  }
}

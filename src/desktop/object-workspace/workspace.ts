/**
 * The assistant-desktop object workspace: one private folder per customer under the data dir
 * (`object-workspaces/c<customer id>/`), holding project folders (`projects/<project_id>/` with a
 * `.project.json` marker) and fetched repositories (`repositories/<name>/`). Rows in the database say what
 * exists and whose it is; a foreign or unknown project is a 404.
 *
 * A repository is downloaded through the SSRF-safe fetcher, read by the archive reader (which refuses anything
 * unsafe before a byte is written), unpacked into a staging folder and only then moved into place; any failure
 * removes the staging folder, so nothing is left behind and a previous copy stays untouched.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ObjectWorkspaceConfig } from '../../config/sections/object-workspace.js';
import type { Clock } from '../../kernel/clock.js';
import { AppError, notFound } from '../../kernel/errors.js';
import { randomBase62 } from '../../kernel/ids.js';
import { removeTree } from '../../kernel/tenant-fs.js';
import { SafeFetchError, safeDownload, systemResolver, type Resolver, type SafeFetchPolicy } from '../../net/safe-fetch.js';
import type { Storage } from '../../storage/database.js';
import { iso } from '../text.js';
import { ArchiveError, readArchive, type ParsedArchive } from './archive.js';

export const PROJECT_ID_PATTERN = '^owp_[A-Za-z0-9]{20}$';
export const REPOSITORY_NAME_PATTERN = '^(?!\\.+$)[A-Za-z0-9._-]{1,100}$';
export const COMMIT_PATTERN = '^[A-Za-z0-9._/-]{0,200}$';
const PROJECT_NAME = /^[A-Za-z0-9 ._-]{1,100}$/;
const PROJECT_BODY_MAX_BYTES = 64 * 1024;
const MARKER = '.project.json';

const unprocessable = (message: string) => new AppError('VALIDATION_FAILED', message);

/** A project name: bounded charset and length, no path separators, not only dots, no edge spaces. */
export function checkProjectName(value: unknown): string {
  if (typeof value !== 'string') throw unprocessable('name is required (a string)');
  if (!PROJECT_NAME.test(value)) throw unprocessable('name must be 1-100 characters of letters, digits, space, dot, underscore or hyphen');
  if (/^\.+$/.test(value)) throw unprocessable('name must not be only dots');
  if (value.trim() !== value) throw unprocessable('name must not start or end with a space');
  return value;
}

export interface ObjectWorkspaceDeps {
  storage: Storage;
  clock: Clock;
  dataDir: string;
  config: ObjectWorkspaceConfig;
}

export class ObjectWorkspaces {
  /** How host names are resolved for downloads (tests point names at chosen addresses). */
  resolve: Resolver = systemResolver;
  private readonly policy: SafeFetchPolicy;
  private readonly busy = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: ObjectWorkspaceDeps) {
    const { config } = deps;
    this.policy = {
      allowHosts: config.allowHosts,
      denyHosts: config.denyHosts,
      onlyAllowHosts: config.onlyAllowHosts,
      ports: config.ports,
      maxBytes: config.maxDownloadBytes,
      maxRedirects: config.maxRedirects,
      timeoutMs: config.timeoutMs,
      extraCa: config.extraCaFile ? fs.readFileSync(config.extraCaFile, 'utf8') : undefined,
    };
  }

  /** The customer's workspace folder. */
  root(customerId: number): string {
    return path.join(this.deps.dataDir, 'object-workspaces', `c${customerId}`);
  }

  /** Creates the workspace (row and folders) when missing; safe to repeat. */
  async ensure(customerId: number) {
    const now = this.deps.clock.nowMs();
    const inserted = await this.deps.storage.db
      .insertInto('object_workspaces')
      .values({ customer_id: customerId, created_at: now })
      .onConflict((conflict) => conflict.column('customer_id').doNothing())
      .returning('created_at')
      .executeTakeFirst();
    const root = this.root(customerId);
    await fs.promises.mkdir(path.join(root, 'projects'), { recursive: true, mode: 0o700 });
    await fs.promises.mkdir(path.join(root, 'repositories'), { recursive: true, mode: 0o700 });
    const row = await this.deps.storage.db
      .selectFrom('object_workspaces')
      .select('created_at')
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    return { created: inserted !== undefined, created_at: iso(Number(row.created_at)), ...(await this.describe(customerId)) };
  }

  private async describe(customerId: number) {
    const db = this.deps.storage.db;
    const [projects, repositories] = await Promise.all([
      db
        .selectFrom('object_workspace_projects')
        .select(['project_id', 'name', 'created_at'])
        .where('customer_id', '=', customerId)
        .orderBy('created_at')
        .orderBy('project_id')
        .execute(),
      db.selectFrom('object_workspace_repositories').selectAll().where('customer_id', '=', customerId).orderBy('name').execute(),
    ]);
    return {
      projects: projects.map((row) => ({ project_id: row.project_id, name: row.name, created_at: iso(Number(row.created_at)) })),
      repositories: repositories.map((row) => this.repositoryJson(row)),
    };
  }

  private repositoryJson(row: {
    name: string;
    source_url: string;
    commit_ref: string;
    format: string;
    files: number;
    bytes: number;
    stored_at: number;
  }) {
    return {
      repository_name: row.name,
      source_url: row.source_url,
      commit: row.commit_ref,
      format: row.format,
      files: Number(row.files),
      bytes: Number(row.bytes),
      stored_at: iso(Number(row.stored_at)),
    };
  }

  /** Creates a private project folder; the body is free-form, its `name` is validated. */
  async createProject(customerId: number, body: Record<string, unknown>) {
    const name = checkProjectName(body.name);
    const json = JSON.stringify(body);
    if (Buffer.byteLength(json) > PROJECT_BODY_MAX_BYTES)
      throw new AppError('PAYLOAD_TOO_LARGE', `the project body exceeds ${PROJECT_BODY_MAX_BYTES} bytes`);
    await this.ensure(customerId);
    const db = this.deps.storage.db;
    const count = await db
      .selectFrom('object_workspace_projects')
      .select((eb) => eb.fn.countAll().as('n'))
      .where('customer_id', '=', customerId)
      .executeTakeFirstOrThrow();
    if (Number(count.n) >= this.deps.config.maxProjects) throw new AppError('CONFLICT', `at most ${this.deps.config.maxProjects} projects`);
    const projectId = `owp_${randomBase62(20)}`;
    const now = this.deps.clock.nowMs();
    const inserted = await db
      .insertInto('object_workspace_projects')
      .values({ project_id: projectId, customer_id: customerId, name, name_key: name.toLowerCase(), body_json: json, created_at: now })
      .onConflict((conflict) => conflict.columns(['customer_id', 'name_key']).doNothing())
      .returning('project_id')
      .executeTakeFirst();
    if (!inserted) throw new AppError('CONFLICT', `a project named "${name}" exists`);
    const folder = path.join(this.root(customerId), 'projects', projectId);
    try {
      await fs.promises.mkdir(folder, { mode: 0o700 });
      await fs.promises.writeFile(path.join(folder, MARKER), JSON.stringify({ project_id: projectId, name, created_at: iso(now), body }), {
        flag: 'wx',
        mode: 0o600,
      });
    } catch (error) {
      await removeFolder(folder);
      await db.deleteFrom('object_workspace_projects').where('project_id', '=', projectId).execute();
      throw error;
    }
    return { project_id: projectId, name, created_at: iso(now), body };
  }

  /** Deletes the project's marker, row and folder; a foreign or unknown id is a 404. */
  async deleteProject(customerId: number, projectId: string) {
    const deleted = await this.deps.storage.db
      .deleteFrom('object_workspace_projects')
      .where('project_id', '=', projectId)
      .where('customer_id', '=', customerId)
      .returning('project_id')
      .executeTakeFirst();
    if (!deleted) throw notFound('Project');
    const folder = path.join(this.root(customerId), 'projects', projectId);
    await removeFolder(folder);
    return { project_id: projectId, deleted: true };
  }

  /** Downloads, checks and unpacks a repository archive as `repositories/<name>/` (replacing an older copy). */
  async storeRepository(customerId: number, name: string, sourceUrl: string, commit: string) {
    if (/^\.+$/.test(name)) throw unprocessable('repository_name must not be only dots');
    if (sourceUrl.trim() === '') throw unprocessable('sourceUrl is required');
    // Fetches of one repository folder run one after another (each replaces the folder as a whole).
    const key = `${customerId}/${name}`;
    const previous = this.busy.get(key) ?? Promise.resolve();
    const work = previous.catch(() => undefined).then(() => this.fetchAndStore(customerId, name, sourceUrl.trim(), commit));
    this.busy.set(key, work);
    try {
      return await work;
    } finally {
      if (this.busy.get(key) === work) this.busy.delete(key);
    }
  }

  /** Unpacks into a staging folder, then swaps it in for the repository's folder (the old one is restored on failure). */
  private async storeUnpacked(customerId: number, name: string, archive: ParsedArchive): Promise<boolean> {
    await this.ensure(customerId);
    const root = this.root(customerId);
    const staging = path.join(root, `.staging-${randomBytes(8).toString('hex')}`);
    const target = path.join(root, 'repositories', name);
    const retired = path.join(root, `.retired-${randomBytes(8).toString('hex')}`);
    let replaced = false;
    try {
      await unpack(staging, archive);
      replaced = await fs.promises.rename(target, retired).then(
        () => true,
        (error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') return false;
          throw error;
        },
      );
      await fs.promises.rename(staging, target);
    } catch (error) {
      await removeFolder(staging);
      if (replaced) await fs.promises.rename(retired, target).catch(() => undefined);
      throw error;
    }
    await removeFolder(retired);
    return replaced;
  }

  private async fetchAndStore(customerId: number, name: string, sourceUrl: string, commit: string) {
    const { config } = this.deps;
    let downloaded;
    try {
      downloaded = await safeDownload(sourceUrl, this.policy, this.resolve);
    } catch (error) {
      if (!(error instanceof SafeFetchError)) throw error;
      if (error.kind === 'refused') throw unprocessable(`sourceUrl refused: ${error.message}`);
      if (error.kind === 'too_large') throw new AppError('PAYLOAD_TOO_LARGE', error.message);
      if (error.kind === 'timeout') throw new AppError('UPSTREAM_TIMEOUT', error.message);
      throw new AppError('UPSTREAM_FAILED', error.message);
    }
    let archive: ParsedArchive;
    try {
      archive = readArchive(downloaded.body, {
        maxEntries: config.maxEntries,
        maxUnpackedBytes: config.maxUnpackedBytes,
        maxRatio: config.maxCompressionRatio,
      });
    } catch (error) {
      if (!(error instanceof ArchiveError)) throw error;
      throw error.kind === 'too_large'
        ? new AppError('PAYLOAD_TOO_LARGE', error.message)
        : unprocessable(`archive refused: ${error.message}`);
    }
    if (
      commit &&
      archive.embeddedCommit &&
      /^[0-9a-f]{7,64}$/i.test(commit) &&
      !archive.embeddedCommit.toLowerCase().startsWith(commit.toLowerCase())
    ) {
      throw unprocessable(`the archive is of commit ${archive.embeddedCommit}, not ${commit}`);
    }

    const replaced = await this.storeUnpacked(customerId, name, archive);

    const now = this.deps.clock.nowMs();
    const row = {
      customer_id: customerId,
      name,
      source_url: sourceUrl,
      commit_ref: commit || archive.embeddedCommit || '',
      format: archive.format,
      files: archive.files,
      bytes: archive.bytes,
      stored_at: now,
    };
    await this.deps.storage.db
      .insertInto('object_workspace_repositories')
      .values(row)
      .onConflict((conflict) =>
        conflict.columns(['customer_id', 'name']).doUpdateSet({
          source_url: row.source_url,
          commit_ref: row.commit_ref,
          format: row.format,
          files: row.files,
          bytes: row.bytes,
          stored_at: row.stored_at,
        }),
      )
      .execute();
    return { ...this.repositoryJson(row), final_url: downloaded.finalUrl, embedded_commit: archive.embeddedCommit, replaced };
  }
}

/**
 * Removes a folder of the workspace without following a link anywhere in it (the same no-follow delete as the
 * agent's workspaces get); its parent, a folder of the service, is resolved first.
 */
async function removeFolder(folder: string): Promise<void> {
  const parent = await fs.promises.realpath(path.dirname(folder)).catch(() => null);
  if (parent !== null) await removeTree(path.join(parent, path.basename(folder)));
}

/** Writes the checked entries under `folder` (created fresh); each path is re-checked to stay inside it. */
async function unpack(folder: string, archive: ParsedArchive): Promise<void> {
  await fs.promises.mkdir(folder, { mode: 0o700 });
  const base = path.resolve(folder) + path.sep;
  for (const entry of archive.entries) {
    const destination = path.resolve(folder, entry.path);
    if (!destination.startsWith(base)) throw unprocessable(`archive refused: entry "${entry.path}" escapes its folder`);
    try {
      if (entry.directory) {
        await fs.promises.mkdir(destination, { recursive: true, mode: 0o755 });
        continue;
      }
      await fs.promises.mkdir(path.dirname(destination), { recursive: true, mode: 0o755 });
      await fs.promises.writeFile(destination, entry.data, { flag: 'wx', mode: 0o644 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST' || code === 'ENOTDIR' || code === 'EISDIR')
        throw unprocessable(`archive refused: entry "${entry.path}" collides with another entry`);
      throw error;
    }
  }
}

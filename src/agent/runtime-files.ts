/**
 * Where each customer's app-server finds what the service writes for it. Its Codex home and workspace are the
 * agent's to change, so nothing the service writes lives there: the model catalog goes to a folder of the
 * service's own, `<dataDir>/agent-runtime/<customerId>/` (owned by the service, writable by nobody else), which
 * the sandbox binds read-only. The Codex home's own `tmp` folder is made through the no-follow file operations.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { SandboxUnavailableError } from '../appserver/sandbox.js';
import { ensureFolder } from '../kernel/tenant-fs.js';

export interface RuntimeFiles {
  codexHome: string;
  /** The service-owned folder bound read-only into the sandbox. */
  runtimeDir: string;
  catalogFile: string;
}

/** Creates (or checks) the customer's Codex home and runtime folder; returns their real paths. */
export async function prepareRuntimeFiles(dataDir: string, customerId: number): Promise<RuntimeFiles> {
  const homes = path.join(dataDir, 'codex-homes');
  await fs.mkdir(homes, { recursive: true, mode: 0o755 });
  const codexHome = path.join(await fs.realpath(homes), String(customerId));
  // The homes folder is the service's: the agent cannot replace its own home with a link, only what is inside.
  await fs.mkdir(codexHome, { recursive: true, mode: 0o700 });
  // The app-server's own temporary folder when there is no sandbox (a sandbox gives it a private /var/tmp). A name
  // the agent turned into a link or a FIFO is left as it is: it only spoils the agent's own temporary files.
  await ensureFolder(path.join(codexHome, 'tmp')).catch(() => undefined);
  const runtimeDir = await serviceFolder(path.join(dataDir, 'agent-runtime'), String(customerId));
  return { codexHome, runtimeDir, catalogFile: path.join(runtimeDir, 'model-catalog.json') };
}

/** `parent/name`, made by the service (0755, its own uid) and refused if anyone else could write to it. */
async function serviceFolder(parent: string, name: string): Promise<string> {
  await fs.mkdir(parent, { recursive: true, mode: 0o755 });
  const folder = path.join(await fs.realpath(parent), name);
  await fs.mkdir(folder, { mode: 0o755 }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  const uid = process.getuid?.() ?? 0;
  for (const dir of [path.dirname(folder), folder]) {
    const stats = await fs.lstat(dir);
    if (!stats.isDirectory() || stats.uid !== uid) throw new SandboxUnavailableError(`${dir} is not a folder of the service's own user`);
    if ((stats.mode & 0o022) !== 0) await fs.chmod(dir, stats.mode & 0o755);
  }
  return folder;
}

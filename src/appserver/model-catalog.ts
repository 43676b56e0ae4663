/**
 * The model catalog handed to the app-server (`model_catalog_json`). Codex decides tools and wire dialect by
 * model slug, and an unknown slug such as `power-ai` falls back to generic metadata without `apply_patch`.
 * The catalog therefore declares every model id and alias of this service with the metadata of a known coding
 * model, taken from the catalog bundled in the very binary we run (`codex debug models --bundled`), so it
 * always matches that binary's schema.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { writeFileIn } from '../kernel/tenant-fs.js';

const run = promisify(execFile);

type ModelMetadata = Record<string, unknown> & { slug: string };

export async function readBundledCatalog(binary: string): Promise<ModelMetadata[]> {
  const codexHome = await fs.mkdtemp(path.join(os.tmpdir(), 'codex-catalog-'));
  try {
    const { stdout } = await run(binary, ['debug', 'models', '--bundled'], {
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', CODEX_HOME: codexHome, LOG_FORMAT: 'json' },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 30_000,
    });
    const parsed = JSON.parse(stdout) as { models?: ModelMetadata[] };
    if (!Array.isArray(parsed.models)) throw new Error('codex debug models: no models array');
    return parsed.models;
  } finally {
    await fs.rm(codexHome, { recursive: true, force: true });
  }
}

export interface CatalogEntry {
  slug: string;
  displayName: string;
}

/** Clones the template model's metadata for each of our slugs. */
export function buildCatalog(bundled: ModelMetadata[], templateSlug: string, entries: CatalogEntry[]): { models: ModelMetadata[] } {
  const template = bundled.find((model) => model.slug === templateSlug);
  if (!template) throw new Error(`model template ${templateSlug} is not in the app-server's bundled catalog`);
  const seen = new Set<string>();
  const models: ModelMetadata[] = [];
  entries.forEach((entry, index) => {
    if (seen.has(entry.slug)) return;
    seen.add(entry.slug);
    models.push({
      ...structuredClone(template),
      slug: entry.slug,
      display_name: entry.displayName,
      description: `${entry.displayName} through this service's gateway.`,
      // Our provider is plain HTTP Responses; websockets would only add failed upgrade attempts.
      prefer_websockets: false,
      availability_nux: null,
      upgrade: null,
      visibility: 'list',
      priority: index,
    });
  });
  return { models };
}

/**
 * Writes the catalog atomically (a fresh O_EXCL temp name, fsync, rename) into a service-owned folder — one the
 * app-server sees read-only, never its writable Codex home — so nothing the agent plants can redirect the write.
 */
export async function writeCatalog(file: string, catalog: { models: ModelMetadata[] }): Promise<void> {
  await writeFileIn(file, Buffer.from(JSON.stringify(catalog)), { mode: 0o644 });
}

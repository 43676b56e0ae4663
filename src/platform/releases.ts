/**
 * Release metadata of the CLI and the two launchers, from config `releases`. Given the caller's current
 * version, says whether an update is available (and required, below `minimumVersion`) by semantic-version
 * precedence, never by string comparison.
 */
import { AppError, notFound, validationError } from '../kernel/errors.js';
import type { ReleaseConfig } from '../config/sections/platform.js';
import { compareVersions, parseVersion, type SemanticVersion } from '../kernel/semver.js';

export const RELEASE_PRODUCTS = { cli: 'cli', 'launcher-a': 'launcherA', 'launcher-b': 'launcherB' } as const;
export type ReleaseProduct = keyof typeof RELEASE_PRODUCTS;

export interface ReleaseStatus {
  product: ReleaseProduct;
  version: string;
  latest_version: string;
  minimum_version: string | null;
  download_url: string | null;
  notes: string | null;
  published_at: string | null;
  current_version: string | null;
  /** null when the caller sent no current version. */
  update_available: boolean | null;
  update_required: boolean | null;
}

export interface CurrentVersionQuery {
  current?: string;
  currentVersion?: string;
}

function parseOrReject(text: string, field: string): SemanticVersion {
  const parsed = parseVersion(text);
  if (!parsed) {
    throw validationError([
      { loc: ['query', field], msg: 'Value is not a semantic version (MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD])', type: 'value_error' },
    ]);
  }
  return parsed;
}

/** `current` wins over `currentVersion`; both name the same thing, and sending two different values is an error. */
function currentFrom(query: CurrentVersionQuery): { text: string; field: string } | undefined {
  const { current, currentVersion } = query;
  if (current !== undefined && currentVersion !== undefined && current !== currentVersion) {
    throw validationError([{ loc: ['query', 'currentVersion'], msg: 'current and currentVersion differ', type: 'value_error' }]);
  }
  if (current !== undefined) return { text: current, field: 'current' };
  if (currentVersion !== undefined) return { text: currentVersion, field: 'currentVersion' };
  return undefined;
}

export class ReleaseCatalogue {
  constructor(private readonly releases: Readonly<Partial<Record<(typeof RELEASE_PRODUCTS)[ReleaseProduct], ReleaseConfig>>>) {}

  status(product: ReleaseProduct, query: CurrentVersionQuery = {}): ReleaseStatus {
    const release = this.releases[RELEASE_PRODUCTS[product]];
    const given = currentFrom(query);
    const current = given === undefined ? undefined : parseOrReject(given.text, given.field);
    if (!release) throw notFound(`Release metadata for ${product}`);
    const latest = parseVersion(release.version);
    if (!latest) throw new AppError('INTERNAL', `configured ${product} version is not a semantic version`);
    const minimum = release.minimumVersion === undefined ? undefined : parseVersion(release.minimumVersion);
    return {
      product,
      version: release.version,
      latest_version: release.version,
      minimum_version: release.minimumVersion ?? null,
      download_url: release.downloadUrl ?? null,
      notes: release.notes ?? null,
      published_at: release.publishedAt ?? null,
      current_version: given?.text.trim() ?? null,
      update_available: current === undefined ? null : compareVersions(current, latest) < 0,
      update_required: current === undefined ? null : minimum !== undefined && compareVersions(current, minimum) < 0,
    };
  }
}

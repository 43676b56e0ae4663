/** Release metadata of the CLI and the launchers (public, no bearer): `/api/v1/{product}/version`. */
import { Type } from '@sinclair/typebox';
import { RELEASE_PRODUCTS, type ReleaseProduct } from '../../../../platform/releases.js';
import { SEMVER_PATTERN } from '../../../../kernel/semver.js';
import type { PlatformServices } from '../../../../platform/index.js';
import type { App } from '../../../types.js';

const VersionText = Type.String({
  maxLength: 128,
  pattern: SEMVER_PATTERN,
  description: 'A semantic version such as 1.2.3 or 1.3.0-beta.2',
});

const VersionQuery = Type.Object({
  current: Type.Optional(VersionText),
  currentVersion: Type.Optional(VersionText),
});

export interface VersionRouteDeps {
  platform: Pick<PlatformServices, 'releases'>;
}

export async function versionRoutes(app: App, deps: VersionRouteDeps): Promise<void> {
  for (const product of Object.keys(RELEASE_PRODUCTS) as ReleaseProduct[]) {
    app.get(
      `/${product}/version`,
      {
        config: { auth: 'public' },
        schema: {
          tags: ['public'],
          summary: `${product} release metadata; with current/currentVersion, whether an update is available`,
          querystring: VersionQuery,
        },
      },
      async (request) => deps.platform.releases.status(product, request.query),
    );
  }
}

/** Public platform metadata: regions and release metadata of the CLI and the launchers. */
import { Type, type Static } from '@sinclair/typebox';
import { SEMVER_PATTERN } from '../../kernel/semver.js';

export const RegionEntry = Type.Object(
  {
    id: Type.String({ minLength: 1, pattern: '^[a-z0-9-]+$' }),
    name: Type.String({ minLength: 1 }),
    /** Base URL clients use for this region's API. */
    apiBaseUrl: Type.String({ pattern: '^https?://' }),
    /** Checked with an HTTP GET; a 2xx answer within server.regionCheckTimeoutMs means available. */
    healthUrl: Type.String({ pattern: '^https?://' }),
  },
  { additionalProperties: false },
);

export const ReleaseEntry = Type.Object(
  {
    version: Type.String({ pattern: SEMVER_PATTERN }),
    downloadUrl: Type.Optional(Type.String()),
    notes: Type.Optional(Type.String()),
    publishedAt: Type.Optional(Type.String()),
    /** Clients below this version are told an update is required. */
    minimumVersion: Type.Optional(Type.String({ pattern: SEMVER_PATTERN })),
  },
  { additionalProperties: false },
);
export type ReleaseConfig = Static<typeof ReleaseEntry>;

export const PlatformSection = {
  regions: Type.Array(RegionEntry, { default: [] }),
  releases: Type.Object(
    {
      cli: Type.Optional(ReleaseEntry),
      launcherA: Type.Optional(ReleaseEntry),
      launcherB: Type.Optional(ReleaseEntry),
    },
    { default: {}, additionalProperties: false },
  ),
};

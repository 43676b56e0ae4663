/** Public platform metadata: regions and release metadata of the CLI and the launchers. */
import { Type, type Static } from '@sinclair/typebox';

export const RegionEntry = Type.Object({
  id: Type.String({ minLength: 1 }),
  name: Type.String({ minLength: 1 }),
  apiBaseUrl: Type.String({ pattern: '^https?://' }),
  healthUrl: Type.String({ pattern: '^https?://' }),
});

export const ReleaseEntry = Type.Object({
  version: Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$' }),
  downloadUrl: Type.Optional(Type.String()),
  notes: Type.Optional(Type.String()),
  publishedAt: Type.Optional(Type.String()),
  minimumVersion: Type.Optional(Type.String({ pattern: '^\\d+\\.\\d+\\.\\d+(?:-[0-9A-Za-z.-]+)?$' })),
});
export type ReleaseConfig = Static<typeof ReleaseEntry>;

export const PlatformSection = {
  regions: Type.Array(RegionEntry, { default: [] }),
  releases: Type.Object(
    {
      cli: Type.Optional(ReleaseEntry),
      launcherA: Type.Optional(ReleaseEntry),
      launcherB: Type.Optional(ReleaseEntry),
    },
    { default: {} },
  ),
};

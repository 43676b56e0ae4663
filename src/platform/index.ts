/** Public platform metadata: regional availability and release versions of the CLI and launchers. */
import type { AppConfig } from '../config/load-config.js';
import type { Clock } from '../kernel/clock.js';
import { RegionMonitor } from './regions.js';
import { ReleaseCatalogue } from './releases.js';

export interface PlatformServices {
  regions: RegionMonitor;
  releases: ReleaseCatalogue;
}

export function createPlatformServices(config: AppConfig, clock: Clock): PlatformServices {
  return {
    regions: new RegionMonitor(
      config.regions,
      {
        timeoutMs: config.server.regionCheckTimeoutMs,
        cacheMs: config.server.regionCheckCacheMs,
      },
      clock,
    ),
    releases: new ReleaseCatalogue(config.releases),
  };
}

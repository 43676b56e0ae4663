/** Operators see the stored timed jobs: what is due when, how often each ran, the last failure. */
import type { TimedWork } from '../../../../jobs/index.js';
import type { App } from '../../../types.js';

export interface AdminJobRouteDeps {
  jobs: Pick<TimedWork, 'runner'>;
}

export async function adminJobRoutes(app: App, deps: AdminJobRouteDeps): Promise<void> {
  app.get(
    '/jobs',
    {
      config: { auth: 'operator' },
      schema: {
        tags: ['admin'],
        summary:
          'The job runner’s stored jobs, soonest due first (at most 500): {data: [{kind, key, run_at, recurring, runs, attempts, last_run_at, last_error, done_at}]}',
      },
    },
    async () => ({ data: await deps.jobs.runner.list() }),
  );
}

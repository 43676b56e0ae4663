/** Activity: what each billed call and agent turn cost, with filters and a CSV export. */
import { ActivityTable } from '../../shared/activity';
import { call, client } from '../../shared/api';
import { useLoad } from '../../shared/hooks';
import { Card } from '../../shared/ui';
import type { ViewProps } from './index';

export function ActivityView({ me }: ViewProps) {
  const keys = useLoad(() => call(() => client.GET('/api/v1/me/api-keys')));
  const models = (me.prices ?? []).map((entry) => entry.model);
  return (
    <>
      <h1>Activity</h1>
      <Card>
        <ActivityTable
          path="/api/v1/activity"
          keys={(keys.data?.data ?? []).map((key) => ({ id: key.id, name: `${key.name} …${key.last_four}` }))}
          models={models}
          projectLinks
        />
      </Card>
    </>
  );
}

/** The console's Activity tab of one customer: the same table and CSV as the customer's own Activity page. */
import { ActivityTable } from '../shared/activity';

export function CustomerActivity(props: {
  customerId: number;
  keys: { id: number; name: string | null; last_four: string; kind: string }[];
}) {
  return (
    <div data-testid="customer-activity">
      <h3>Activity</h3>
      <ActivityTable
        path={`/api/admin/customers/${props.customerId}/activity`}
        keys={props.keys.map((key) => ({ id: key.id, name: `${key.name ?? key.kind} …${key.last_four}` }))}
        models={[]}
      />
    </div>
  );
}

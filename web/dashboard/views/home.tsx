/** Home: the account at a glance. */
import { usd } from '../../shared/format';
import { Card } from '../../shared/ui';
import type { ViewProps } from './index';

export function HomeView({ me }: ViewProps) {
  return (
    <>
      <h1>Home</h1>
      <div class="grid">
        <Card title="Wallet">
          <p class="stat" data-testid="balance">{usd(me.wallet.micros)}</p>
          <p class="muted">Available {usd(me.wallet.available.micros)} · held for calls in flight {usd(me.wallet.held.micros)}</p>
          <p class="muted">Plan: {me.wallet.plan ?? 'pay as you go'}</p>
        </Card>
      </div>
    </>
  );
}

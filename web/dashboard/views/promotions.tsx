/** Promotions: daily check-in, the spin wheel, the raffle, the referral club and the one-time share credit. */
import { useState } from 'preact/hooks';
import { call, client } from '../../shared/api';
import { dateTime, usd } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { HumanCheckWidget, useHumanCheck } from '../../shared/human-check';
import { Card, Notice, Outcome } from '../../shared/ui';
import type { ViewProps } from './index';

function CopyLink({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="field">
      <span class="label-text">{label}</span>
      <div class="row">
        <code class="wrap">{value}</code>
        <button
          type="button"
          class="secondary"
          onClick={() =>
            navigator.clipboard.writeText(value).then(
              () => setCopied(true),
              () => undefined,
            )
          }
        >
          {copied ? 'Copied' : 'Copy'}
          <span class="visually-hidden"> {label}</span>
        </button>
      </div>
    </div>
  );
}

export function PromotionsView({ me, reloadMe }: ViewProps) {
  const on = me.features.promotions;
  const checkin = useLoad(() => call(() => client.GET('/api/v1/daily-checkin')));
  const spin = useLoad(() => call(() => client.GET('/api/v1/spin-wheel')));
  const raffle = useLoad(() => call(() => client.GET('/api/v1/raffle')));
  const referral = useLoad(() => call(() => client.GET('/api/v1/referral')));
  const share = useLoad(() => call(() => client.GET('/api/v1/share-credit')));
  const action = useAction();
  // Free credit needs a verified email and a solved human check per claim (a payload is used once).
  const human = useHumanCheck(true);
  const claim = async <D,>(send: (body: { humanCheck?: string }) => ReturnType<Parameters<typeof call<D>>[0]>): Promise<D> => {
    const body = human.fields();
    try {
      return await call(() => send(body));
    } finally {
      human.fresh();
    }
  };
  const after = async (...loads: { reload: () => Promise<void> }[]) => {
    await Promise.all([...loads.map((load) => load.reload()), reloadMe()]);
  };
  return (
    <>
      <h1>Promotions</h1>
      <Outcome outcome={action.outcome} />
      <p class="muted">Claims need a verified email address and the human check below (it solves itself in a moment).</p>
      <HumanCheckWidget generation={human.generation} onPayload={human.setPayload} />
      <div class="grid">
        {on.checkin ? (
          <Card title="Daily check-in">
            {checkin.error ? <Notice kind="error">{checkin.error}</Notice> : null}
            {checkin.data ? (
              checkin.data.enabled ? (
                <>
                  <p>
                    Streak: <strong>{checkin.data.streak}</strong> day{checkin.data.streak === 1 ? '' : 's'}. Next reward{' '}
                    {usd(checkin.data.next_reward.micros)}.
                  </p>
                  {checkin.data.claimed_today ? (
                    <p class="muted">Claimed today. Next claim {dateTime(checkin.data.next_claim_at)}.</p>
                  ) : (
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() =>
                        action.run(async () => {
                          await claim((body) => client.POST('/api/v1/daily-checkin/claim', { body }));
                          await after(checkin, raffle);
                          return 'Checked in: the reward is in your wallet.';
                        })
                      }
                    >
                      Check in
                    </button>
                  )}
                </>
              ) : (
                <p class="muted">Not offered at the moment.</p>
              )
            ) : null}
          </Card>
        ) : null}
        {on.spin_wheel ? (
          <Card title="Spin wheel">
            {spin.error ? <Notice kind="error">{spin.error}</Notice> : null}
            {spin.data ? (
              spin.data.enabled ? (
                <>
                  <ul class="plain-list" aria-label="Prizes">
                    {spin.data.prizes.map((prize) => (
                      <li key={prize.id}>
                        {prize.label} <span class="muted">({Math.round(prize.probability * 100)} %)</span>
                      </li>
                    ))}
                  </ul>
                  {spin.data.result ? (
                    <p>
                      You won <strong>{usd(spin.data.result.amount.micros)}</strong> on {dateTime(spin.data.result.spun_at)}.
                    </p>
                  ) : null}
                  {spin.data.entries_left > 0 ? (
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() =>
                        action.run(async () => {
                          const won = await claim((body) => client.POST('/api/v1/spin-wheel/spin', { body }));
                          await after(spin);
                          return `You won ${won.prize.label}!`;
                        })
                      }
                    >
                      Spin the wheel
                    </button>
                  ) : null}
                </>
              ) : (
                <p class="muted">Not offered at the moment.</p>
              )
            ) : null}
          </Card>
        ) : null}
        {on.raffle ? (
          <Card title="Raffle">
            {raffle.error ? <Notice kind="error">{raffle.error}</Notice> : null}
            {raffle.data?.current ? (
              <>
                <p>
                  Prize {usd(raffle.data.current.prize_micros)} ({raffle.data.current.winners} winner
                  {raffle.data.current.winners === 1 ? '' : 's'}), drawn {dateTime(raffle.data.current.draws_at)}.
                </p>
                <p>
                  Your entries: <strong>{raffle.data.current.your_entries}</strong> of {raffle.data.current.total_entries}.
                </p>
                <p class="muted">
                  {raffle.data.how_to_enter.per_daily_checkin} entry per daily check-in, {raffle.data.how_to_enter.per_paid_top_up} per paid
                  top-up.
                </p>
                <details>
                  <summary>How the draw is checked</summary>
                  <p class="muted">{raffle.data.fairness}</p>
                  <p class="muted wrap">Seed hash: {raffle.data.current.seed_hash}</p>
                </details>
              </>
            ) : raffle.data ? (
              <p class="muted">No raffle is open.</p>
            ) : null}
          </Card>
        ) : null}
        {on.referral ? (
          <Card title="Referral club">
            {referral.error ? <Notice kind="error">{referral.error}</Notice> : null}
            {referral.data ? (
              <>
                <p>
                  Level <strong>{referral.data.club_level}</strong> · {referral.data.referred.total} referred, {referral.data.referred.paid}{' '}
                  paid · you earn {referral.data.share_percent} % of their top-ups.
                </p>
                <p>Earned (cash wallet): {usd(referral.data.earnings.net.micros)}</p>
                <CopyLink label="Your referral link" value={referral.data.referral_link} />
              </>
            ) : null}
          </Card>
        ) : null}
        {on.share_credit ? (
          <Card title="Share credit">
            {share.error ? <Notice kind="error">{share.error}</Notice> : null}
            {share.data ? (
              share.data.enabled ? (
                <>
                  <p>
                    Get {usd(share.data.amount.micros)} once: {share.data.requirement}
                  </p>
                  <CopyLink label="Your share link" value={share.data.share_link} />
                  <p class="muted">Opened by others: {share.data.visits_by_others}</p>
                  {share.data.claimed ? (
                    <p>Claimed.</p>
                  ) : (
                    <button
                      type="button"
                      disabled={action.busy || !share.data.claimable}
                      onClick={() =>
                        action.run(async () => {
                          await claim((body) => client.POST('/api/v1/share-credit/claim', { body }));
                          await after(share);
                          return 'Share credit added to your wallet.';
                        })
                      }
                    >
                      Claim share credit
                    </button>
                  )}
                </>
              ) : (
                <p class="muted">Not offered at the moment.</p>
              )
            ) : null}
          </Card>
        ) : null}
      </div>
    </>
  );
}

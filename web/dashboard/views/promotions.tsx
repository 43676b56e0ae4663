/** Promotions: daily check-in, the spin wheel, the raffle, the referral club and the one-time share credit. */
import { useState } from 'preact/hooks';
import { api } from '../../shared/api';
import { dateTime, usd } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { HumanCheckWidget, useHumanCheck } from '../../shared/human-check';
import { Card, Notice, Outcome } from '../../shared/ui';
import type { Money, ViewProps } from './index';

interface Checkin {
  enabled: boolean;
  claimed_today: boolean;
  streak: number;
  next_reward: Money;
  next_claim_at: string;
}
interface Spin {
  enabled: boolean;
  entries_left: number;
  result: { prize?: { label?: string }; label?: string; amount: Money; spun_at: string } | null;
  prizes: { id: string; label: string; probability: number }[];
}
interface Raffle {
  enabled: boolean;
  current: {
    draws_at: string;
    prize_micros: number;
    winners: number;
    seed_hash: string;
    your_entries: number;
    total_entries: number;
    entrants: number;
  } | null;
  how_to_enter: { per_daily_checkin: number; per_paid_top_up: number };
  past_draws: { raffle_id: number; drawn_at?: string; seed?: string; winners?: unknown[] }[];
  fairness: string;
}
interface Referral {
  referral_code: string;
  referral_link: string;
  club_level: string;
  referred: { total: number; paid: number };
  share_percent: number;
  earnings: { net: Money };
}
interface ShareCredit {
  enabled: boolean;
  amount: Money;
  claimed: boolean;
  share_link: string;
  visits_by_others: number;
  claimable: boolean;
  requirement: string;
}

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

export function PromotionsView({ reloadMe }: ViewProps) {
  const checkin = useLoad(() => api.get<Checkin>('/api/v1/daily-checkin'));
  const spin = useLoad(() => api.get<Spin>('/api/v1/spin-wheel'));
  const raffle = useLoad(() => api.get<Raffle>('/api/v1/raffle'));
  const referral = useLoad(() => api.get<Referral>('/api/v1/referral'));
  const share = useLoad(() => api.get<ShareCredit>('/api/v1/share-credit'));
  const action = useAction();
  // Free credit needs a verified email and a solved human check per claim (a payload is used once).
  const human = useHumanCheck(true);
  const claim = async <T,>(url: string): Promise<T> => {
    try {
      return await api.post<T>(url, human.fields());
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
                        await claim('/api/v1/daily-checkin/claim');
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
                        const won = await claim<{ prize: { label: string } }>('/api/v1/spin-wheel/spin');
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
                        await claim('/api/v1/share-credit/claim');
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
      </div>
    </>
  );
}

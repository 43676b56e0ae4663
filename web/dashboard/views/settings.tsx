/**
 * Settings: edge region, two-factor sign-in (QR code drawn in the page), password, name, email, agent (toolbox)
 * and notification preferences, and a one-time sign-in link for another device.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, client, type Answer, type Body } from '../../shared/api';
import { REASONING_EFFORTS } from '../../shared/reasoning-efforts';
import { dateTime } from '../../shared/format';
import { useAction, useLoad } from '../../shared/hooks';
import { Card, Check, Field, Notice, Outcome, SelectField } from '../../shared/ui';
import type { ViewProps } from './index';

type Profile = ViewProps['me']['profile'];
type Toolbox = Answer<'/api/v1/toolbox'>;
type Engagement = Answer<'/api/v1/customer-engagement'>;

const EMAIL_LABELS: Record<keyof Engagement['email'], string> = {
  productUpdates: 'Product updates',
  billing: 'Billing and receipts',
  keyAlerts: 'Key alerts',
  inboxDigest: 'Inbox digest',
};
const IN_APP_LABELS: Record<keyof Engagement['inApp'], string> = { keyAlerts: 'Key alerts', announcements: 'Announcements' };

function Region({ profile, reloadMe }: { profile: Profile; reloadMe: () => Promise<void> }) {
  const regions = useLoad(() => call(() => client.GET('/api/v1/status/regions')));
  const [region, setRegion] = useState(profile.edge_region?.id ?? '');
  const action = useAction();
  const list = regions.data?.regions ?? [];
  if (list.length === 0)
    return <p class="muted">{profile.edge_region ? `Region: ${profile.edge_region.name}` : 'This service has one region.'}</p>;
  return (
    <form
      aria-label="Edge region"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          await call(() => client.POST('/api/v1/me/edge-region', { body: { region } }));
          await reloadMe();
          return 'Region saved.';
        });
      }}
    >
      <Outcome outcome={action.outcome} />
      <SelectField
        label="Preferred API region"
        value={region}
        onValue={setRegion}
        options={list.map((one) => ({
          value: one.id,
          label: `${one.name}${one.available ? (one.latency_ms !== null ? ` (${one.latency_ms} ms)` : '') : ' (unavailable)'}`,
        }))}
        hint={profile.edge_region ? `API base URL: ${profile.edge_region.api_base_url}` : undefined}
      />
      <button type="submit" disabled={action.busy}>
        Save region
      </button>
    </form>
  );
}

function TwoFactor({ enabled, reloadMe }: { enabled: boolean; reloadMe: () => Promise<void> }) {
  const [setup, setSetup] = useState<Answer<'/api/v1/me/2fa/setup', 'post'> | null>(null);
  const [qr, setQr] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  useEffect(() => {
    if (!setup) return;
    // Loaded on demand: the QR encoder stays out of the first load.
    void import('qrcode').then((loaded) => {
      // A CommonJS module: its functions sit on the default export once bundled.
      const QRCode = loaded.default ?? loaded;
      return QRCode.toDataURL(setup.otpauth_uri, { margin: 1, width: 192 }).then(setQr);
    });
  }, [setup]);

  if (enabled)
    return (
      <form
        aria-label="Turn off two-factor sign-in"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            await call(() => client.POST('/api/v1/me/2fa/disable', { body: code.trim() ? { code: code.trim() } : { password } }));
            setCode('');
            setPassword('');
            await reloadMe();
            return 'Two-factor sign-in is off.';
          });
        }}
      >
        <Outcome outcome={action.outcome} />
        <p>
          <span class="badge">On</span> Sign-in asks for a code from your authenticator app.
        </p>
        <Field
          label="Current code (or your password below)"
          value={code}
          onValue={setCode}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
        />
        <Field label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" />
        <button type="submit" class="danger" disabled={action.busy}>
          Turn off two-factor sign-in
        </button>
      </form>
    );
  if (!setup)
    return (
      <>
        <Outcome outcome={action.outcome} />
        <p>Protect the dashboard with a code from an authenticator app.</p>
        <button
          type="button"
          disabled={action.busy}
          onClick={() => action.run(async () => setSetup(await call(() => client.POST('/api/v1/me/2fa/setup'))))}
        >
          Set up two-factor sign-in
        </button>
      </>
    );
  return (
    <form
      aria-label="Confirm two-factor sign-in"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          await call(() => client.POST('/api/v1/me/2fa/enable', { body: { code: code.trim(), password } }));
          setSetup(null);
          setCode('');
          setPassword('');
          await reloadMe();
          return 'Two-factor sign-in is on.';
        });
      }}
    >
      <Outcome outcome={action.outcome} />
      <p>Scan the code with your authenticator app, or type the secret, then enter the 6-digit code it shows.</p>
      {qr ? <img class="qr" src={qr} alt="QR code of the authenticator secret" /> : <p aria-busy="true">Drawing the QR code…</p>}
      <p>
        Secret: <code data-testid="totp-secret">{setup.secret}</code>
      </p>
      <Field
        label="Code from the app"
        value={code}
        onValue={setCode}
        inputMode="numeric"
        autoComplete="one-time-code"
        maxLength={6}
        required
      />
      <Field label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" required />
      <button type="submit" disabled={action.busy}>
        Turn on
      </button>
    </form>
  );
}

function Password() {
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const action = useAction();
  return (
    <form
      aria-label="Change password"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          await call(() =>
            client.POST('/api/v1/me/password', { body: { ...(current ? { current_password: current } : {}), new_password: next } }),
          );
          setCurrent('');
          setNext('');
          return 'Password changed; other dashboard sessions were signed out.';
        });
      }}
    >
      <Outcome outcome={action.outcome} />
      <Field
        label="Current password"
        type="password"
        value={current}
        onValue={setCurrent}
        autoComplete="current-password"
        hint="Leave empty to set a first password for an account made through your identity provider."
      />
      <Field
        label="New password"
        type="password"
        value={next}
        onValue={setNext}
        autoComplete="new-password"
        hint="At least 8 characters."
        required
      />
      <button type="submit" disabled={action.busy}>
        Change password
      </button>
    </form>
  );
}

/** A one-time code that links a bot chat to this account (`/link <code>` in the chat). */
function ChatBotLink() {
  const [issued, setIssued] = useState<Answer<'/api/v1/chatbot/link-code', 'post'> | null>(null);
  const action = useAction();
  return (
    <>
      <Outcome outcome={action.outcome} />
      {issued ? (
        <p>
          Send <code data-testid="chatbot-command">{issued.command}</code> to the bot before {dateTime(issued.expires_at)}.
        </p>
      ) : (
        <p class="muted">Link a chat with the bot to ask for your balance, usage and alerts there.</p>
      )}
      <button
        type="button"
        class="secondary"
        disabled={action.busy}
        onClick={() =>
          void action.run(async () => {
            setIssued(await call(() => client.POST('/api/v1/chatbot/link-code')));
          })
        }
      >
        Get a link code
      </button>
    </>
  );
}

function Identity({ me, profile, reloadMe }: { me: ViewProps['me']; profile: Profile; reloadMe: () => Promise<void> }) {
  const [first, setFirst] = useState(profile.first_name ?? '');
  const [surname, setSurname] = useState(profile.surname ?? '');
  const [email, setEmail] = useState(me.customer.email);
  const [emailPassword, setEmailPassword] = useState('');
  const action = useAction();
  return (
    <>
      <Outcome outcome={action.outcome} />
      <form
        aria-label="Your name"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            await call(() => client.POST('/api/v1/me/profile-name', { body: { first_name: first.trim(), surname: surname.trim() } }));
            await reloadMe();
            return 'Name saved.';
          });
        }}
      >
        <div class="grid">
          <Field label="First name" value={first} onValue={setFirst} autoComplete="given-name" maxLength={100} required />
          <Field label="Surname" value={surname} onValue={setSurname} autoComplete="family-name" maxLength={100} required />
        </div>
        <button type="submit" disabled={action.busy}>
          Save name
        </button>
      </form>
      <form
        aria-label="Email address"
        onSubmit={(event) => {
          event.preventDefault();
          void action.run(async () => {
            await call(() => client.POST('/api/v1/me/email', { body: { email: email.trim(), password: emailPassword } }));
            setEmailPassword('');
            await reloadMe();
            return 'Email changed. Your previous address got a link that undoes the change.';
          });
        }}
      >
        <Field label="Email" type="email" value={email} onValue={setEmail} autoComplete="email" required />
        <Field
          label="Password (to change the email)"
          type="password"
          value={emailPassword}
          onValue={setEmailPassword}
          autoComplete="current-password"
          required
        />
        <button type="submit" disabled={action.busy}>
          Change email
        </button>
      </form>
    </>
  );
}

function ToolboxForm() {
  const toolbox = useLoad(() => call(() => client.GET('/api/v1/toolbox')));
  const [values, setValues] = useState<Toolbox['effective'] | null>(null);
  const action = useAction();
  if (!toolbox.data) return toolbox.error ? <Notice kind="error">{toolbox.error}</Notice> : null;
  const current = values ?? toolbox.data.effective;
  const set = (key: keyof Toolbox['effective']) => (value: string) => setValues({ ...current, [key]: value });
  return (
    <form
      aria-label="Agent preferences"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          // The selects offer only the service's values (its allowed lists and reasoning efforts).
          const body = current as Body<'/api/v1/toolbox', 'post'>;
          await call(() => client.POST('/api/v1/toolbox', { body }));
          await toolbox.reload();
          setValues(null);
          return 'Agent preferences saved.';
        });
      }}
    >
      <Outcome outcome={action.outcome} />
      <SelectField
        label="Web search"
        value={current.webSearch}
        onValue={set('webSearch')}
        options={toolbox.data.allowed.webSearch.map((value) => ({ value, label: value }))}
      />
      <SelectField
        label="Reasoning effort"
        value={current.reasoningEffort}
        onValue={set('reasoningEffort')}
        options={REASONING_EFFORTS.map((value) => ({ value, label: value }))}
      />
      <SelectField
        label="Approval policy"
        value={current.approvalPolicy}
        onValue={set('approvalPolicy')}
        options={toolbox.data.allowed.approvalPolicy.map((value) => ({ value, label: value }))}
      />
      <button type="submit" disabled={action.busy}>
        Save agent preferences
      </button>
    </form>
  );
}

function EngagementForm() {
  const loaded = useLoad(() => call(() => client.GET('/api/v1/customer-engagement')));
  const [values, setValues] = useState<Engagement | null>(null);
  const action = useAction();
  if (!loaded.data) return loaded.error ? <Notice kind="error">{loaded.error}</Notice> : null;
  const current = values ?? loaded.data;
  return (
    <form
      aria-label="Notifications"
      onSubmit={(event) => {
        event.preventDefault();
        void action.run(async () => {
          setValues(await call(() => client.PUT('/api/v1/customer-engagement', { body: current })));
          return 'Notification preferences saved.';
        });
      }}
    >
      <Outcome outcome={action.outcome} />
      <fieldset>
        <legend>Email me</legend>
        <div class="checks">
          {(Object.keys(EMAIL_LABELS) as (keyof Engagement['email'])[]).map((key) => (
            <Check
              key={key}
              label={EMAIL_LABELS[key]}
              checked={current.email[key]}
              onChecked={(on) => setValues({ ...current, email: { ...current.email, [key]: on } })}
            />
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend>Show in the dashboard</legend>
        <div class="checks">
          {(Object.keys(IN_APP_LABELS) as (keyof Engagement['inApp'])[]).map((key) => (
            <Check
              key={key}
              label={IN_APP_LABELS[key]}
              checked={current.inApp[key]}
              onChecked={(on) => setValues({ ...current, inApp: { ...current.inApp, [key]: on } })}
            />
          ))}
        </div>
      </fieldset>
      <button type="submit" disabled={action.busy}>
        Save notifications
      </button>
    </form>
  );
}

function SsoLink() {
  const [link, setLink] = useState<Answer<'/api/v1/me/sso-link', 'post'> | null>(null);
  const action = useAction();
  return (
    <>
      <Outcome outcome={action.outcome} />
      <p class="muted">
        A single-use link that signs another device into this dashboard. Anyone with the link can use it until it expires.
      </p>
      <button
        type="button"
        class="secondary"
        disabled={action.busy}
        onClick={() => action.run(async () => setLink(await call(() => client.POST('/api/v1/me/sso-link', { body: {} }))))}
      >
        Create sign-in link
      </button>
      {link ? (
        <p>
          <code class="secret">{link.url}</code>
          <span class="muted">Valid until {dateTime(link.expires_at)}.</span>
        </p>
      ) : null}
    </>
  );
}

export function SettingsView({ me, reloadMe }: ViewProps) {
  const profile = me.profile;
  return (
    <>
      <h1>Settings</h1>
      <div class="grid">
        <Card title="Two-factor sign-in">
          <TwoFactor enabled={me.two_factor_enabled} reloadMe={reloadMe} />
        </Card>
        <Card title="Edge region">
          <Region profile={profile} reloadMe={reloadMe} />
        </Card>
      </div>
      <Card title="Profile">
        <Identity me={me} profile={profile} reloadMe={reloadMe} />
      </Card>
      <div class="grid">
        <Card title="Password">
          <Password />
        </Card>
        <Card title="Sign-in link">
          <SsoLink />
        </Card>
        <Card title="Chat bot">
          <ChatBotLink />
        </Card>
      </div>
      <div class="grid">
        <Card title="Agent preferences">
          <ToolboxForm />
        </Card>
        <Card title="Notifications">
          <EngagementForm />
        </Card>
      </div>
    </>
  );
}

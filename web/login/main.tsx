/**
 * The sign-in page: web login with the second-factor step, the human check when the service asks for it,
 * identity-provider sign-in (when configured), registration, the password-reset request and the page the
 * emailed reset link opens (`/login.html#token=…`). `?returnTo=` (own paths only) is where a session lands;
 * `?error=<code>` from a failed single sign-on is shown as a sentence; `?ref=<code>` (a share link's referral
 * code) goes with the registration and the identity-provider sign-up.
 */
import { safeReturnTo } from '../../src/kernel/return-to.js';
import '../shared/styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../shared/api';
import { Field, Notice } from '../shared/ui';
import { HumanCheckWidget, useHumanCheck } from '../shared/human-check';

interface AuthOptions {
  identity_provider: boolean;
  registration: 'open' | 'invite' | 'closed';
  human_check: { register: boolean; promotion: boolean; idp: boolean; web_login: boolean };
}
type WebLoginAnswer = { two_factor_required: true; challenge: string } | { two_factor_required: false };

const ERRORS: Record<string, string> = {
  sso_link_invalid: 'That sign-in link is invalid, expired or was already used. Sign in with your password, or ask for a new link.',
  idp_state_invalid: 'The identity-provider sign-in took too long or was already used. Please try again.',
  idp_denied: 'The identity provider did not let you in (the request was declined or cancelled).',
  idp_code_missing: 'The identity provider sent no sign-in code back. Please try again.',
  idp_callback_invalid: 'The identity provider’s answer could not be verified. Please try again.',
  idp_email_unverified: 'Your identity-provider account has no verified email address, so it cannot sign you in here.',
  account_disabled: 'This account is disabled. Contact support.',
  registration_closed: 'This service creates accounts by invitation only. Ask its operator for an invite.',
};

const params = new URLSearchParams(location.search);
const returnTo = safeReturnTo(params.get('returnTo'));
/** The referral code of a share link (`/r/{code}` lands here with `?ref=`); the service also keeps it in a cookie. */
const referralCode = /^[A-Za-z0-9]{6,32}$/.test(params.get('ref') ?? '') ? params.get('ref')! : null;

function needsHumanCheck(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 422 || !Array.isArray(error.detail)) return false;
  return error.detail.some(
    (item) =>
      Array.isArray((item as { loc?: unknown }).loc) &&
      (item as { loc: unknown[] }).loc.some((part) => String(part).startsWith('humanCheck')),
  );
}

function message(error: unknown): string {
  if (error instanceof ApiError && error.status === 429) return 'Too many attempts. Wait a few minutes and try again.';
  return error instanceof Error ? error.message : String(error);
}

function HumanCheckField(props: { human: ReturnType<typeof useHumanCheck> }) {
  if (!props.human.shown) return null;
  return <HumanCheckWidget generation={props.human.generation} onPayload={props.human.setPayload} />;
}

function SignIn({ options }: { options: AuthOptions | null }) {
  const [login, setLogin] = useState('');
  const [password, setPassword] = useState('');
  const [challenge, setChallenge] = useState<string | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const human = useHumanCheck(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const answer = await api.post<WebLoginAnswer>('/api/v1/auth/web-login', { login: login.trim(), password, ...human.fields() });
      if (answer.two_factor_required) {
        setChallenge(answer.challenge);
        setBusy(false);
        return;
      }
      location.assign(returnTo);
    } catch (caught) {
      if (needsHumanCheck(caught)) {
        human.fresh();
        setError('Please complete the human check, then sign in again.');
      } else {
        if (human.shown) human.fresh();
        setError(message(caught));
      }
      setBusy(false);
    }
  };

  const submitCode = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/v1/auth/web-login/2fa', { challenge, code: code.trim() });
      location.assign(returnTo);
    } catch (caught) {
      setError(
        caught instanceof ApiError && caught.status === 401 && /challenge/i.test(caught.message)
          ? 'This sign-in expired. Enter your password again.'
          : message(caught),
      );
      if (caught instanceof ApiError && /challenge/i.test(caught.message)) setChallenge(null);
      setCode('');
      setBusy(false);
    }
  };

  if (challenge) {
    return (
      <form onSubmit={submitCode} aria-labelledby="twofa-title">
        <h1 id="twofa-title">Two-factor sign-in</h1>
        <p class="muted">Enter the 6-digit code from your authenticator app.</p>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field
          label="Authenticator code"
          value={code}
          onValue={setCode}
          inputMode="numeric"
          autoComplete="one-time-code"
          maxLength={6}
          required
        />
        <button type="submit" disabled={busy}>
          Verify
        </button>
      </form>
    );
  }

  const idpHref =
    `/api/v1/auth/idp/start?returnTo=${encodeURIComponent(returnTo)}` +
    (referralCode ? `&referralCode=${encodeURIComponent(referralCode)}` : '');
  return (
    <>
      <form onSubmit={submit} aria-labelledby="signin-title">
        <h1 id="signin-title">Sign in to Switchyard</h1>
        {error ? <Notice kind="error">{error}</Notice> : null}
        <Field label="Email or username" value={login} onValue={setLogin} autoComplete="username" required />
        <Field label="Password" type="password" value={password} onValue={setPassword} autoComplete="current-password" required />
        <HumanCheckField human={human} />
        <div class="row">
          <button type="submit" disabled={busy}>
            Sign in
          </button>
          <a href="#/forgot">Forgot password?</a>
        </div>
      </form>
      {options?.identity_provider && !options.human_check.idp ? (
        <p>
          <a class="button secondary" href={idpHref}>
            Continue with your identity provider
          </a>
        </p>
      ) : null}
      {options?.identity_provider && options.human_check.idp ? <IdpWithCheck href={idpHref} /> : null}
      {options && options.registration !== 'open' ? (
        <p>New here? Accounts on this service are created by its operator: ask them for an invite.</p>
      ) : (
        <p>
          New here? <a href="#/register">Create an account</a>
        </p>
      )}
    </>
  );
}

/** Identity-provider sign-in when the service wants a human check first (sent as query parameters). */
function IdpWithCheck({ href }: { href: string }) {
  const human = useHumanCheck(true);
  const go = (event: Event) => {
    event.preventDefault();
    if (!human.payload) return;
    location.assign(`${href}&humanCheck=${encodeURIComponent(human.payload)}`);
  };
  return (
    <form onSubmit={go} aria-label="Identity-provider sign-in">
      <HumanCheckField human={human} />
      <button type="submit" class="secondary">
        Continue with your identity provider
      </button>
    </form>
  );
}

/** Registration; with an invite link (`#invite=…&email=…`) the invited email is fixed and no human check is asked. */
function Register({ options, invite }: { options: AuthOptions | null; invite?: { token: string; email: string } }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState(invite?.email ?? '');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const human = useHumanCheck(invite ? false : (options?.human_check.register ?? false));

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/v1/customer/register', {
        email: email.trim(),
        password,
        ...(name.trim() ? { name: name.trim() } : {}),
        ...(referralCode ? { referralCode } : {}),
        ...(invite ? { invite: invite.token } : human.fields()),
      });
      await api.post('/api/v1/auth/web-login', { email: email.trim(), password });
      location.assign(returnTo);
    } catch (caught) {
      if (needsHumanCheck(caught) || human.shown) human.fresh();
      setError(
        caught instanceof ApiError && caught.status === 409
          ? 'An account with this email already exists. Sign in instead.'
          : message(caught),
      );
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} aria-labelledby="register-title">
      <h1 id="register-title">Create an account</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Field label="Name (optional)" value={name} onValue={setName} autoComplete="name" />
      {invite ? <p>You were invited as {invite.email}. Choose a password to create your account.</p> : null}
      {invite ? null : <Field label="Email" type="email" value={email} onValue={setEmail} autoComplete="email" required />}
      <Field
        label="Password"
        type="password"
        value={password}
        onValue={setPassword}
        autoComplete="new-password"
        hint="At least 8 characters."
        required
      />
      {invite ? null : <HumanCheckField human={human} />}
      <div class="row">
        <button type="submit" disabled={busy}>
          Create account
        </button>
        <a href="#/">I already have an account</a>
      </div>
    </form>
  );
}

function Forgot() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      const answer = await api.post<{ message: string }>('/api/v1/auth/password-reset/request', { email: email.trim() });
      setSent(answer.message);
    } catch (caught) {
      setError(message(caught));
    }
  };
  return (
    <form onSubmit={submit} aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {sent ? <Notice kind="ok">{sent}</Notice> : null}
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Field label="Email" type="email" value={email} onValue={setEmail} autoComplete="email" required />
      <div class="row">
        <button type="submit">Email me a reset link</button>
        <a href="#/">Back to sign in</a>
      </div>
    </form>
  );
}

function Reset({ token }: { token: string }) {
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    if (password !== repeat) return setError('The two passwords differ.');
    try {
      await api.post('/api/v1/auth/password-reset/confirm', { token, password });
      setDone(true);
    } catch (caught) {
      setError(message(caught));
    }
  };
  if (done)
    return (
      <>
        <h1>Password changed</h1>
        <Notice kind="ok">Your new password is set. Every dashboard session was signed out.</Notice>
        <a class="button" href="#/">
          Sign in
        </a>
      </>
    );
  return (
    <form onSubmit={submit} aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <Field
        label="New password"
        type="password"
        value={password}
        onValue={setPassword}
        autoComplete="new-password"
        hint="At least 8 characters."
        required
      />
      <Field label="Repeat the new password" type="password" value={repeat} onValue={setRepeat} autoComplete="new-password" required />
      <button type="submit">Set password</button>
    </form>
  );
}

/** The link mailed to the old address after an email change: one button puts the old address back. */
function EmailUndo({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setError(null);
    try {
      await api.post('/api/v1/auth/email-change/undo', { token });
      setDone(true);
    } catch (caught) {
      setError(message(caught));
    }
  };
  if (done)
    return (
      <Notice kind="ok">
        The email change is undone and every dashboard session is signed out. <a href="#/">Sign in</a> and change your password.
      </Notice>
    );
  return (
    <form onSubmit={submit} aria-labelledby="undo-title">
      <h1 id="undo-title">Undo the email change</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <p>This puts your previous email address back on the account and signs every dashboard session out.</p>
      <button type="submit">Undo the change</button>
    </form>
  );
}

function route(): { name: string; token?: string; email?: string } {
  const hash = location.hash.replace(/^#\/?/, '');
  const invite = /(?:^|[?&])invite=([A-Za-z0-9_-]+)/.exec(hash)?.[1];
  if (invite) return { name: 'register', token: invite, email: decodeURIComponent(/(?:^|[?&])email=([^&]*)/.exec(hash)?.[1] ?? '') };
  const token = /(?:^|[?&])token=([A-Za-z0-9_-]+)/.exec(hash)?.[1];
  if (token) return { name: 'reset', token };
  const undo = /(?:^|[?&])email_undo=([A-Za-z0-9_-]+)/.exec(hash)?.[1];
  if (undo) return { name: 'email-undo', token: undo };
  return { name: hash.split(/[/?]/)[0] || 'signin' };
}

function App() {
  const [current, setCurrent] = useState(route);
  const [options, setOptions] = useState<AuthOptions | null>(null);
  useEffect(() => {
    const onHash = () => setCurrent(route());
    addEventListener('hashchange', onHash);
    void api.get<AuthOptions>('/api/v1/auth/options').then(setOptions, () => undefined);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const [moved, setMoved] = useState(false);
  useEffect(() => {
    const titles: Record<string, string> = { register: 'Create an account', forgot: 'Reset your password', reset: 'Choose a new password' };
    document.title = `${titles[current.name] ?? 'Sign in'} · Switchyard`;
    // After switching forms (not on the first load), focus goes to the new heading for screen-reader users.
    if (moved) {
      const heading = document.querySelector<HTMLElement>('main h1');
      heading?.setAttribute('tabindex', '-1');
      heading?.focus();
    }
    setMoved(true);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs on a view change; moved is read as it is then
  }, [current.name]);
  const code = params.get('error');
  return (
    <main class="center-page">
      <p class="brand">Switchyard</p>
      {code && current.name === 'signin' ? (
        <Notice kind="error">{ERRORS[code] ?? `Sign-in failed (${code}). Please try again.`}</Notice>
      ) : null}
      <div class="card">
        {current.name === 'register' ? (
          <Register options={options} invite={current.token ? { token: current.token, email: current.email ?? '' } : undefined} />
        ) : current.name === 'forgot' ? (
          <Forgot />
        ) : current.name === 'reset' ? (
          <Reset token={current.token!} />
        ) : current.name === 'email-undo' ? (
          <EmailUndo token={current.token!} />
        ) : (
          <SignIn options={options} />
        )}
      </div>
    </main>
  );
}

render(<App />, document.getElementById('app')!);

/**
 * The operator console. Public static code that shows nothing but the sign-in form until an operator console
 * session exists (`GET /api/admin/session`); every call it makes is an operator-only `/api/admin` route.
 * Sign-in exchanges the operator token or a managed operator key for that session once
 * (`POST /api/v1/auth/operator-session`); the token is not kept by the page.
 */
import '../shared/styles.css';
import './admin.css';
import { render, type FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, cookie } from '../shared/api';
import { Field, Notice, SkipLink } from '../shared/ui';
import { admin } from './admin-api';
import { CustomersSection } from './customers';
import { MailSection } from './mail';
import { DesktopSection, LedgerSection, MessagesSection } from './operations';
import { RoutingSection } from './routing';

const SECTIONS: { name: string; title: string; component: FunctionComponent }[] = [
  { name: 'customers', title: 'Customers', component: CustomersSection },
  { name: 'mail', title: 'Invites and mail', component: MailSection },
  { name: 'routing', title: 'Providers, models and prices', component: RoutingSection },
  { name: 'messages', title: 'Messages', component: MessagesSection },
  { name: 'desktop', title: 'Desktop clients', component: DesktopSection },
  { name: 'ledger', title: 'Ledger', component: LedgerSection },
];

function sectionName(): string {
  const name = location.hash.replace(/^#\/?/, '');
  return SECTIONS.some((section) => section.name === name) ? name : SECTIONS[0]!.name;
}

function SignIn({ onSignedIn }: { onSignedIn: () => void }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await api.post('/api/v1/auth/operator-session', { token });
      setToken('');
      onSignedIn();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 401 ? 'That is not an operator token or key.' : (caught as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="center-page" id="main">
      <h1>Operator console</h1>
      {error ? <Notice kind="error">{error}</Notice> : null}
      <form onSubmit={submit} class="card">
        <Field
          label="Operator token or managed operator key"
          type="password"
          value={token}
          onValue={setToken}
          autoComplete="off"
          required
        />
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p class="muted">The session lasts 8 hours and works only for this console.</p>
    </main>
  );
}

function Console() {
  const [state, setState] = useState<'checking' | 'signed-out' | 'signed-in'>('checking');
  const [error, setError] = useState<string | null>(null);
  const [section, setSection] = useState(sectionName);

  const check = async () => {
    // No console session's CSRF cookie: signed out, without asking (the answer could only be a 401).
    if (!cookie('sy_operator_csrf')) return setState('signed-out');
    try {
      await admin.get('/api/admin/session');
      setState('signed-in');
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) setState('signed-out');
      else setError((caught as Error).message);
    }
  };
  useEffect(() => {
    void check();
    const onHash = () => setSection(sectionName());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const current = SECTIONS.find((candidate) => candidate.name === section)!;
    document.title = state === 'signed-in' ? `${current.title} · Operator console · Switchyard` : 'Operator console · Switchyard';
  }, [section, state]);

  if (error)
    return (
      <main class="center-page">
        <Notice kind="error">{error}</Notice>
      </main>
    );
  if (state === 'checking')
    return (
      <main class="center-page" aria-busy="true">
        <p>Loading…</p>
      </main>
    );
  if (state === 'signed-out') return <SignIn onSignedIn={() => void check()} />;

  const current = SECTIONS.find((candidate) => candidate.name === section)!;
  const signOut = async () => {
    await admin.post('/api/admin/session/end').catch(() => undefined);
    setState('signed-out');
  };
  return (
    <div class="layout">
      <SkipLink />
      <aside class="sidebar">
        <span class="brand">Switchyard operator</span>
        <nav aria-label="Console">
          <ul>
            {SECTIONS.map((candidate) => (
              <li key={candidate.name}>
                <a href={`#${candidate.name}`} aria-current={candidate.name === section ? 'page' : undefined}>
                  {candidate.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="reference-link">
          <a href="/api/admin/docs">API reference</a> <span class="muted">(with the operator routes)</span>
        </p>
        <button type="button" class="secondary sign-out" onClick={signOut}>
          Sign out
        </button>
      </aside>
      <main id="main" tabIndex={-1}>
        <h1>{current.title}</h1>
        <current.component key={current.name} />
      </main>
    </div>
  );
}

render(<Console />, document.getElementById('app')!);

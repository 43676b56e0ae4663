/**
 * The customer dashboard: one page, views chosen by the URL hash (`#/keys`, `#/projects/<id>`, …). The page
 * checks the dashboard session first (`GET /api/v1/me`); without one it sends the visitor to the sign-in page.
 * Each view lives in `views/` and is listed once in `views/index.ts`.
 */
import '../shared/styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { ApiError, call, client, cookie } from '../shared/api';
import { Notice, SkipLink } from '../shared/ui';
import { VIEWS, type Me, type ViewProps } from './views/index';

function currentRoute(): { name: string; params: string[] } {
  const parts = location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
  return { name: parts[0] ?? VIEWS[0]!.name, params: parts.slice(1) };
}

function App() {
  const [me, setMe] = useState<Me | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [route, setRoute] = useState(currentRoute);

  const reload = async () => {
    // Signed out (no session's CSRF cookie): straight to sign-in, without a request that could only answer 401.
    if (!cookie('sy_csrf'))
      return location.assign(`/login.html?returnTo=${encodeURIComponent(location.pathname + location.search + location.hash)}`);
    try {
      setMe(await call(() => client.GET('/api/v1/me')));
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 401) {
        location.assign(`/login.html?returnTo=${encodeURIComponent(location.pathname + location.search + location.hash)}`);
        return;
      }
      setError(caught instanceof Error ? caught.message : String(caught));
    }
  };

  useEffect(() => {
    void reload();
    const onHash = () => setRoute(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  // Every route change, a project's live view opened from the list included, puts the focus on the view.
  const routeKey = [route.name, ...route.params].join('/');
  useEffect(() => {
    const view = VIEWS.find((candidate) => candidate.name === route.name);
    document.title = `${view?.title ?? 'Not found'} · Switchyard`;
    document.getElementById('main')?.focus();
    // eslint-disable-next-line react-hooks/exhaustive-deps -- runs on a route change (routeKey names the route)
  }, [routeKey]);

  if (error)
    return (
      <main class="center-page">
        <Notice kind="error">{error}</Notice>
      </main>
    );
  if (!me)
    return (
      <main class="center-page" aria-busy="true">
        <p>Loading…</p>
      </main>
    );

  const view = VIEWS.find((candidate) => candidate.name === route.name);
  const props: ViewProps = { me, params: route.params, reloadMe: reload };
  const logout = async () => {
    await call(() => client.POST('/api/v1/auth/logout')).catch(() => undefined);
    location.assign('/login.html');
  };
  return (
    <div class="layout">
      <SkipLink />
      <aside class="sidebar">
        <span class="brand">Switchyard</span>
        <nav aria-label="Dashboard">
          <ul>
            {VIEWS.filter((candidate) => !candidate.hidden && (candidate.offered?.(me) ?? true)).map((candidate) => (
              <li key={candidate.name}>
                <a href={`#/${candidate.name}`} aria-current={candidate.name === route.name ? 'page' : undefined}>
                  {candidate.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <p class="muted account-name">{me.customer.name ?? me.customer.email}</p>
        <button type="button" class="secondary sign-out" onClick={logout}>
          Sign out
        </button>
      </aside>
      <main id="main" tabIndex={-1}>
        {view ? <view.component {...props} /> : <Notice kind="error">No such page.</Notice>}
      </main>
    </div>
  );
}

render(<App />, document.getElementById('app')!);

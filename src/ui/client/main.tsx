// main.tsx: the dashboard's shell — navigation, hash routing (`#/page?params`, so the back button and links work
// without server routes), the live connection indicator and the page in view.
import { render } from 'preact';
import { useContext, useEffect, useState } from 'preact/hooks';
import type { Summary } from '../api-types.js';
import { LiveContext, useLive, useStream } from './data.js';
import { AddonsPage, EventsPage, FailuresPage, FleetPage, LineagePage, MetricsPage, TriggersPage } from './pages.js';
import './style.css';

const PAGES = [
  { path: '', title: 'Failures' },
  { path: 'fleet', title: 'Fleet' },
  { path: 'events', title: 'Events' },
  { path: 'triggers', title: 'EventTriggers' },
  { path: 'addons', title: 'Add-ons' },
  { path: 'lineage', title: 'Lineage' },
  { path: 'metrics', title: 'Metrics' },
] as const;

function parseHash(h: string): { page: string; params: URLSearchParams } {
  const s = h.replace(/^#\/?/, '');
  const i = s.indexOf('?');
  return { page: i < 0 ? s : s.slice(0, i), params: new URLSearchParams(i < 0 ? '' : s.slice(i + 1)) };
}

function Logo() {
  return (
    <svg viewBox="0 0 32 32" aria-hidden="true">
      <circle cx="16" cy="16" r="4" fill="#60a5fa" />
      <circle cx="16" cy="16" r="9" fill="none" stroke="#60a5fa" stroke-width="2.5" opacity=".7" />
      <circle cx="16" cy="16" r="14" fill="none" stroke="#60a5fa" stroke-width="2" opacity=".35" />
    </svg>
  );
}

function Shell() {
  const [route, setRoute] = useState(parseHash(location.hash));
  useEffect(() => {
    const on = () => {
      setRoute(parseHash(location.hash));
      document.getElementById('main')?.focus({ preventScroll: true });
      window.scrollTo(0, 0);
    };
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  const summary = useLive<Summary>('/api/summary', ['clusters', 'sources', 'triggers', 'addons', 'failures']).data;
  const current = PAGES.find((p) => p.path === route.page) ?? PAGES[0];
  useEffect(() => {
    document.title = `${current.title} · Ripple`;
  }, [current.title]);
  return (
    <div class="shell">
      <a class="skip" href="#main" onClick={(e) => (e.preventDefault(), document.getElementById('main')?.focus())}>
        Skip to content
      </a>
      <aside class="side">
        <div class="brand">
          <Logo /> Ripple
        </div>
        <nav aria-label="pages">
          {PAGES.map((p) => (
            <a key={p.path} href={`#/${p.path}`} aria-current={p === current ? 'page' : undefined}>
              {p.title}
              {p.path === '' && summary && summary.failures > 0 && (
                <span class="badge" aria-label={`${summary.failures} failures`}>
                  {summary.failures}
                </span>
              )}
            </a>
          ))}
        </nav>
        <Live />
      </aside>
      <main id="main" tabIndex={-1}>
        {route.page === 'fleet' ? (
          <FleetPage />
        ) : route.page === 'events' ? (
          <EventsPage />
        ) : route.page === 'triggers' ? (
          <TriggersPage />
        ) : route.page === 'addons' ? (
          <AddonsPage />
        ) : route.page === 'lineage' ? (
          <LineagePage params={route.params} key={route.params.toString()} />
        ) : route.page === 'metrics' ? (
          <MetricsPage />
        ) : (
          <FailuresPage />
        )}
      </main>
    </div>
  );
}

function Live() {
  const { connected } = useContext(LiveContext);
  return (
    <div class="live" role="status" data-testid="live">
      <span class={`dot${connected ? ' on' : ''}`} /> {connected ? 'live' : 'reconnecting…'}
    </div>
  );
}

function App() {
  const live = useStream();
  return (
    <LiveContext.Provider value={live}>
      <Shell />
    </LiveContext.Provider>
  );
}

render(<App />, document.getElementById('app')!);

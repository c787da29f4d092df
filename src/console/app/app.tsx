import { useEffect, useRef, useState } from 'preact/hooks';
import { Api, type Credentials, loadCredentials, saveCredentials } from './api.js';
import { ApiConsole } from './api-console.js';
import { Dashboard } from './dashboard.js';
import { Files } from './files.js';
import { Functions } from './functions.js';
import { Login } from './login.js';
import { Logs } from './logs.js';
import { Realtime } from './realtime.js';
import { Roles } from './roles.js';
import { Settings } from './settings.js';
import { Tables } from './tables.js';
import { Users } from './users.js';

const PAGES = [
  { id: 'dashboard', label: 'Dashboard' },
  { id: 'tables', label: 'Tables' },
  { id: 'users', label: 'Users' },
  { id: 'roles', label: 'Roles' },
  { id: 'functions', label: 'Cloud functions' },
  { id: 'files', label: 'Files' },
  { id: 'realtime', label: 'Realtime' },
  { id: 'logs', label: 'Logs' },
  { id: 'api', label: 'API console' },
  { id: 'settings', label: 'Settings' },
] as const;

/** `#/tables/Post?where=…` → { path: ['tables', 'Post'], query: where=… }. */
function route(): { path: string[]; query: URLSearchParams } {
  const hash = location.hash.replace(/^#\/?/, '');
  const at = hash.indexOf('?');
  const path = (at < 0 ? hash : hash.slice(0, at)).split('/').filter(Boolean).map(decodeURIComponent);
  return { path, query: new URLSearchParams(at < 0 ? '' : hash.slice(at + 1)) };
}

export function App(props: { api: string; brand: string }) {
  const [credentials, setCredentials] = useState<Credentials | null>(loadCredentials);
  const [where, setWhere] = useState(route);
  const main = useRef<HTMLElement>(null);
  useEffect(() => {
    const onHash = () => {
      setWhere(route());
      // A page change moves the keyboard to the page's content, as a new document would.
      main.current?.focus({ preventScroll: true });
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const signIn = (next: Credentials | null) => {
    saveCredentials(next);
    setCredentials(next);
  };
  if (!credentials) return <Login api={props.api} brand={props.brand} onSignIn={signIn} />;
  const api = new Api(props.api, props.brand, credentials);
  const [page = 'dashboard', ...rest] = where.path;
  return (
    <div class="layout">
      <a class="skip" href="#content" onClick={(e) => (e.preventDefault(), main.current?.focus())}>
        Skip to content
      </a>
      <aside class="sidebar">
        <div class="brand">
          <strong>svcbase</strong>
          <span class="app-id" title="application">
            {credentials.applicationId}
          </span>
        </div>
        <nav aria-label="Console pages">
          {PAGES.map((item) => (
            <a href={`#/${item.id}`} aria-current={item.id === page ? 'page' : undefined}>
              {item.label}
            </a>
          ))}
        </nav>
        <button type="button" onClick={() => signIn(null)}>
          Sign out
        </button>
      </aside>
      <main id="content" ref={main} tabIndex={-1}>
        {page === 'tables' ? (
          <Tables api={api} selected={rest[0]} where={where.query.get('where') ?? undefined} />
        ) : page === 'users' ? (
          <Users api={api} />
        ) : page === 'roles' ? (
          <Roles api={api} selected={rest[0]} />
        ) : page === 'functions' ? (
          <Functions api={api} selected={rest[0]} />
        ) : page === 'files' ? (
          <Files api={api} />
        ) : page === 'realtime' ? (
          <Realtime api={api} />
        ) : page === 'logs' ? (
          <Logs api={api} tab={rest[0]} />
        ) : page === 'api' ? (
          <ApiConsole api={api} />
        ) : page === 'settings' ? (
          <Settings api={api} />
        ) : (
          <Dashboard api={api} />
        )}
      </main>
    </div>
  );
}

import { useEffect, useState } from 'preact/hooks';
import { Api, type Credentials, loadCredentials, saveCredentials } from './api.js';
import { Files } from './files.js';
import { Functions } from './functions.js';
import { Login } from './login.js';
import { Realtime } from './realtime.js';
import { Settings } from './settings.js';
import { Tables } from './tables.js';
import { Users } from './users.js';

const PAGES = [
  { id: 'tables', label: 'Tables' },
  { id: 'users', label: 'Users' },
  { id: 'functions', label: 'Cloud functions' },
  { id: 'files', label: 'Files' },
  { id: 'realtime', label: 'Realtime' },
  { id: 'settings', label: 'Settings' },
] as const;

/** `#/tables/Post` → ['tables', 'Post']. */
function route(): string[] {
  return location.hash.replace(/^#\/?/, '').split('/').filter(Boolean).map(decodeURIComponent);
}

export function App(props: { api: string; brand: string }) {
  const [credentials, setCredentials] = useState<Credentials | null>(loadCredentials);
  const [path, setPath] = useState(route);
  useEffect(() => {
    const onHash = () => setPath(route());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const signIn = (next: Credentials | null) => {
    saveCredentials(next);
    setCredentials(next);
  };
  if (!credentials) return <Login api={props.api} brand={props.brand} onSignIn={signIn} />;
  const api = new Api(props.api, props.brand, credentials);
  const [page = 'tables', ...rest] = path;
  return (
    <div class="layout">
      <header>
        <strong>svcbase</strong>
        <span class="app-id" title="application">{credentials.applicationId}</span>
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
      </header>
      <main>
        {page === 'users' ? (
          <Users api={api} />
        ) : page === 'functions' ? (
          <Functions api={api} selected={rest[0]} />
        ) : page === 'files' ? (
          <Files api={api} />
        ) : page === 'realtime' ? (
          <Realtime api={api} />
        ) : page === 'settings' ? (
          <Settings api={api} />
        ) : (
          <Tables api={api} selected={rest[0]} />
        )}
      </main>
    </div>
  );
}

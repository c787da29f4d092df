import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, errorText } from './api.js';
import { DataTable, Messages } from './parts.js';

interface AccessLine {
  readonly seq: number;
  readonly at: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly ms: number;
}

interface FunctionLine {
  readonly at: string;
  readonly function: string;
  readonly level: string;
  readonly message: string;
}

const POLL_MS = 2000;
const KEEP = 500;

/**
 * Live logs of the instance that answers: the access log (`GET /1/logs/access`, kept from the first
 * read on while this page reads it) and every cloud function's log lines (`GET /1/logs/functions`),
 * asked for every 2 s while the page is open and not paused; newest first.
 */
export function Logs(props: { api: Api; tab: string | undefined }) {
  const tab = props.tab === 'functions' ? 'functions' : 'access';
  const [access, setAccess] = useState<AccessLine[]>([]);
  const [functions, setFunctions] = useState<FunctionLine[]>([]);
  const [error, setError] = useState('');
  const [paused, setPaused] = useState(false);
  const [filter, setFilter] = useState('');
  const after = useRef(0);

  useEffect(() => {
    if (paused) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        if (tab === 'access') {
          const reply = await props.api.request('GET', '/1/logs/access', { query: { after: String(after.current) } });
          const lines = (reply['results'] as unknown as AccessLine[]) ?? [];
          if (lines.length > 0 && !stopped) {
            after.current = lines.at(-1)!.seq;
            setAccess((current) => [...lines.reverse(), ...current].slice(0, KEEP));
          }
        } else {
          const reply = await props.api.request('GET', '/1/logs/functions', { query: { limit: String(KEEP) } });
          if (!stopped) setFunctions((reply['results'] as unknown as FunctionLine[]) ?? []);
        }
        if (!stopped) setError('');
      } catch (failure) {
        if (!stopped) setError(errorText(failure));
      }
      if (!stopped) timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [tab, paused]);

  const needle = filter.trim().toLowerCase();
  const shownAccess = needle ? access.filter((line) => `${line.method} ${line.path} ${line.status}`.toLowerCase().includes(needle)) : access;
  const shownFunctions = needle ? functions.filter((line) => `${line.function} ${line.level} ${line.message}`.toLowerCase().includes(needle)) : functions;
  return (
    <section class="content">
      <div class="title-row">
        <h2>Logs</h2>
        <nav class="tabs" aria-label="Logs">
          <a href="#/logs/access" aria-current={tab === 'access' ? 'page' : undefined}>
            Access log
          </a>
          <a href="#/logs/functions" aria-current={tab === 'functions' ? 'page' : undefined}>
            Function logs
          </a>
        </nav>
        <div class="actions">
          <button type="button" aria-pressed={paused} onClick={() => setPaused(!paused)}>
            {paused ? 'Resume' : 'Pause'}
          </button>
        </div>
      </div>
      <p class="meta">
        {tab === 'access'
          ? 'Requests to this instance since this page opened, newest first (the console’s own log and metrics reads left out).'
          : 'The newest lines of every cloud function on this instance.'}{' '}
        {paused ? 'Paused.' : 'Live: refreshed every 2 s.'}
      </p>
      <label class="grow">
        Filter lines
        <input type="search" name="logFilter" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <Messages error={error} />
      {tab === 'access' ? (
        <DataTable columns={['time', 'method', 'path', 'status', 'ms']}>
          {shownAccess.map((line) => (
            <tr class={line.status >= 500 ? 'error' : line.status >= 400 ? 'warn' : undefined}>
              <td class="nowrap">{line.at}</td>
              <td>{line.method}</td>
              <td class="path">{line.path}</td>
              <td>{line.status}</td>
              <td>{line.ms}</td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <DataTable columns={['time', 'function', 'level', 'message']}>
          {shownFunctions.map((line) => (
            <tr class={line.level === 'error' ? 'error' : line.level === 'warn' ? 'warn' : undefined}>
              <td class="nowrap">{line.at}</td>
              <td>{line.function}</td>
              <td>{line.level}</td>
              <td class="message">{line.message}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </section>
  );
}

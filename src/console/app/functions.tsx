import { useEffect, useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, errorText } from './api.js';
import { Messages } from './parts.js';

interface Deployed {
  readonly name: string;
  readonly language: string;
  readonly updatedAt: string;
  readonly suspended: boolean;
  readonly recentTimeouts: number;
}

const TEMPLATE = `function onRequest(request, response, modules) {
  response.send('hello ' + (request.body.name || 'world'));
}
exports.onRequest = onRequest;
`;

/** Deployed cloud functions: list, edit and deploy (syntax errors shown), invoke, logs, resume a suspended one. */
export function Functions(props: { api: Api; selected: string | undefined }) {
  const { api, selected } = props;
  const [list, setList] = useState<Deployed[]>([]);
  const [source, setSource] = useState(TEMPLATE);
  const [newName, setNewName] = useState('');
  const [body, setBody] = useState('{}');
  const [result, setResult] = useState('');
  const [logs, setLogs] = useState<JsonObject[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  // The function whose source the editor holds: until it has loaded, the editor is read-only, so a
  // late answer never replaces what was typed (and a new name's template arrives before typing).
  const [loaded, setLoaded] = useState<string | undefined>(undefined);
  const current = list.find((item) => item.name === selected);
  const refresh = async () => {
    try {
      setList(((await api.request('GET', '/1/cloudCode'))['results'] as unknown as Deployed[]) ?? []);
      if (selected) setLogs(((await api.request('GET', `/1/cloudCode/${encodeURIComponent(selected)}/logs`, { query: { limit: '50' } }))['results'] as JsonObject[]) ?? []);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => {
    setResult('');
    setNotice('');
    setError('');
    void refresh();
    setLoaded(undefined);
    if (!selected) return;
    let stale = false;
    const show = (text: string) => {
      if (stale) return;
      setSource(text);
      setLoaded(selected);
    };
    api.request('GET', `/1/cloudCode/${encodeURIComponent(selected)}`).then(
      (reply) => show(String(reply['source'] ?? '')),
      () => show(TEMPLATE),
    );
    return () => void (stale = true);
  }, [selected]);
  const act = async (work: () => Promise<void>) => {
    try {
      await work();
      setError('');
    } catch (failure) {
      setError(errorText(failure));
      setNotice('');
    }
    await refresh();
  };
  const deploy = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      await api.request('PUT', `/1/cloudCode/${encodeURIComponent(selected!)}`, { body: { language: 'node', source } });
      setNotice(`Deployed ${selected}.`);
    });
  };
  const invoke = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      let parsed: Json;
      try {
        parsed = JSON.parse(body) as Json;
      } catch {
        throw new Error('The request body is not JSON.');
      }
      const reply = await api.request('POST', `/1/functions/${encodeURIComponent(selected!)}`, { body: parsed });
      setResult(JSON.stringify(reply['result'] ?? null, null, 2));
    });
  };
  return (
    <div class="split">
      <aside aria-label="Functions">
        <h2>Cloud functions</h2>
        <ul class="tables">
          {list.map((item) => (
            <li>
              <a href={`#/functions/${encodeURIComponent(item.name)}`} aria-current={item.name === selected ? 'page' : undefined}>
                {item.name}
              </a>{' '}
              {item.suspended && <small class="error">suspended</small>}
            </li>
          ))}
        </ul>
        <form
          class="inline"
          onSubmit={(event) => {
            event.preventDefault();
            if (/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(newName)) location.hash = `#/functions/${encodeURIComponent(newName)}`;
            else setError('A function name starts with a letter and has letters, digits and _ only.');
          }}
        >
          <label>
            New function
            <input name="newFunction" value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
          </label>
          <button type="submit">Open</button>
        </form>
      </aside>
      <section class="content">
        <Messages error={error} notice={notice} />
        {!selected ? (
          <p>Choose a function, or open a new one to write it.</p>
        ) : (
          <>
            <h2>{selected}</h2>
            {current && (
              <p class="meta">
                {current.language}, deployed {current.updatedAt}, {current.recentTimeouts} recent timeouts
                {current.suspended && (
                  <>
                    {' '}
                    — <strong>suspended</strong>{' '}
                    <button type="button" onClick={() => void act(async () => void (await api.request('PUT', `/1/cloudCode/${encodeURIComponent(selected)}`, { body: { suspended: false } }), setNotice(`Resumed ${selected}.`)))}>
                      Resume
                    </button>
                  </>
                )}
              </p>
            )}
            <form onSubmit={deploy} class="stack">
              <label>
                Source (Node.js style, runs in the sandbox)
                <textarea name="source" class="code" rows={14} value={source} readOnly={loaded !== selected} aria-busy={loaded !== selected} onInput={(e) => setSource(e.currentTarget.value)} spellcheck={false} />
              </label>
              <button type="submit" disabled={loaded !== selected}>
                Deploy
              </button>
            </form>
            <form onSubmit={invoke} class="stack">
              <label>
                Request body (JSON)
                <textarea name="invokeBody" rows={3} value={body} onInput={(e) => setBody(e.currentTarget.value)} spellcheck={false} />
              </label>
              <button type="submit">Invoke</button>
            </form>
            {result && (
              <pre class="result" aria-label="Result">
                {result}
              </pre>
            )}
            <h3>Logs</h3>
            <ul class="logs">
              {logs.map((line) => (
                <li>
                  <time>{String(line['at'])}</time> {String(line['level'])} {String(line['message'])}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>
    </div>
  );
}

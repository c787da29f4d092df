import { useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, type RawAnswer, errorText } from './api.js';
import { DataTable, Messages } from './parts.js';
import { formatValue } from './values.js';

const METHODS = ['GET', 'POST', 'PUT', 'DELETE'] as const;

function pretty(answer: RawAnswer): string {
  if (!answer.contentType.includes('json')) return answer.text;
  try {
    return JSON.stringify(JSON.parse(answer.text), null, 2);
  } catch {
    return answer.text;
  }
}

/**
 * Any REST call with the application's keys: a method, a path with its query, a JSON body, and
 * which key signs it (the master key this console holds, or the REST key typed here, with a session
 * token if given); the answer's status, time and JSON. Below it, a BQL box (`GET /1/cloudQuery`).
 * Nothing typed here is kept.
 */
export function ApiConsole(props: { api: Api }) {
  const { api } = props;
  const [method, setMethod] = useState<string>('GET');
  const [path, setPath] = useState('/1/classes/');
  const [body, setBody] = useState('');
  const [key, setKey] = useState<'master' | 'rest'>('master');
  const [restKey, setRestKey] = useState('');
  const [session, setSession] = useState('');
  const [answer, setAnswer] = useState<RawAnswer | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [bql, setBql] = useState('select * from ');
  const [values, setValues] = useState('');
  const [bqlRows, setBqlRows] = useState<JsonObject[] | null>(null);
  const [bqlCount, setBqlCount] = useState<number | null>(null);
  const [bqlError, setBqlError] = useState('');

  const send = async (event: Event) => {
    event.preventDefault();
    if (!path.startsWith('/')) return setError('The path starts with / (e.g. /1/classes/Post).');
    if (body.trim() !== '' && method !== 'GET') {
      try {
        JSON.parse(body);
      } catch (failure) {
        return setError(`The body is not JSON: ${errorText(failure)}`);
      }
    }
    if (key === 'rest' && restKey.trim() === '') return setError('Type the REST API key, or use the master key.');
    const headers: Record<string, string> = key === 'master' ? { [api.header('Master-Key')]: api.credentials.masterKey } : { [api.header('REST-API-Key')]: restKey.trim() };
    if (session.trim()) headers[api.header('Session-Token')] = session.trim();
    setBusy(true);
    setError('');
    try {
      setAnswer(await api.raw(method, path, headers, method === 'GET' || body.trim() === '' ? undefined : body));
    } catch (failure) {
      setError(errorText(failure));
    } finally {
      setBusy(false);
    }
  };
  const query = async (event: Event) => {
    event.preventDefault();
    let parsed: Json | undefined;
    if (values.trim() !== '') {
      try {
        parsed = JSON.parse(values) as Json;
      } catch {
        return setBqlError('The values are not JSON (an array, e.g. ["a", 3]).');
      }
    }
    try {
      const reply = await api.request('GET', '/1/cloudQuery', { query: { bql, ...(parsed === undefined ? {} : { values: JSON.stringify(parsed) }) } });
      setBqlRows((reply['results'] as JsonObject[]) ?? []);
      setBqlCount(typeof reply['count'] === 'number' ? reply['count'] : null);
      setBqlError('');
    } catch (failure) {
      setBqlRows(null);
      setBqlError(errorText(failure));
    }
  };
  const columns = bqlRows ? [...new Set(bqlRows.flatMap((row) => Object.keys(row)))] : [];
  return (
    <section class="content">
      <h2>API console</h2>
      <form class="stack" onSubmit={send} aria-label="REST call">
        <div class="row">
          <label>
            Method
            <select name="method" value={method} onChange={(e) => setMethod(e.currentTarget.value)}>
              {METHODS.map((m) => (
                <option value={m}>{m}</option>
              ))}
            </select>
          </label>
          <label class="grow">
            Path and query
            <input name="path" value={path} spellcheck={false} onInput={(e) => setPath(e.currentTarget.value)} />
          </label>
        </div>
        <div class="row">
          <label>
            Key
            <select name="key" value={key} onChange={(e) => setKey(e.currentTarget.value as 'master' | 'rest')}>
              <option value="master">Master key</option>
              <option value="rest">REST API key</option>
            </select>
          </label>
          {key === 'rest' && (
            <label>
              REST API key
              <input name="restKey" type="password" autocomplete="off" value={restKey} onInput={(e) => setRestKey(e.currentTarget.value)} />
            </label>
          )}
          <label class="grow">
            Session token (optional)
            <input name="sessionToken" autocomplete="off" value={session} onInput={(e) => setSession(e.currentTarget.value)} />
          </label>
        </div>
        <label>
          Body (JSON)
          <textarea name="body" class="code" rows={5} value={body} disabled={method === 'GET'} spellcheck={false} onInput={(e) => setBody(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={busy}>
          Send
        </button>
      </form>
      <Messages error={error} />
      {answer && (
        <div class="answer">
          <p role="status">
            <strong class={answer.status >= 400 ? 'error' : 'notice'}>{answer.status}</strong> in <span class="timing">{answer.ms.toFixed(1)} ms</span>
          </p>
          <pre class="result" aria-label="Answer">
            {pretty(answer)}
          </pre>
        </div>
      )}
      <h2>BQL</h2>
      <form class="stack" onSubmit={query} aria-label="BQL query">
        <label>
          Query
          <textarea name="bql" class="code" rows={2} value={bql} spellcheck={false} onInput={(e) => setBql(e.currentTarget.value)} />
        </label>
        <label>
          Values for ? (JSON array, optional)
          <input name="bqlValues" value={values} spellcheck={false} onInput={(e) => setValues(e.currentTarget.value)} />
        </label>
        <button type="submit">Run</button>
      </form>
      <Messages error={bqlError} />
      {bqlRows && (
        <>
          <p class="meta" aria-label="BQL result">
            {bqlRows.length} rows{bqlCount === null ? '' : `, count ${bqlCount}`}
          </p>
          <DataTable columns={columns}>
            {bqlRows.map((row) => (
              <tr>
                {columns.map((column) => (
                  <td>{formatValue(row[column])}</td>
                ))}
              </tr>
            ))}
          </DataTable>
        </>
      )}
    </section>
  );
}

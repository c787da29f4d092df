import { useEffect, useRef, useState } from 'preact/hooks';
import type { Json, JsonObject } from './api.js';

interface Entry {
  readonly who: string;
  readonly read: boolean;
  readonly write: boolean;
}

const PRINCIPAL = /^(\*|role:[A-Za-z0-9 _-]{1,64}|[A-Za-z0-9_-]{1,64})$/;

function entriesOf(acl: Json | undefined): Entry[] {
  if (typeof acl !== 'object' || acl === null || Array.isArray(acl)) return [];
  return Object.entries(acl).map(([who, rights]) => {
    const r = typeof rights === 'object' && rights !== null && !Array.isArray(rights) ? rights : {};
    return { who, read: r['read'] === true, write: r['write'] === true };
  });
}

/**
 * A row's ACL: one line per principal (`*` for everyone, a user's objectId, `role:<name>`) with
 * read and write boxes. Saving writes the ACL (`{}` is the master key only); "No ACL" removes it
 * (public read and write).
 */
export function AclEditor(props: { objectId: string; acl: Json | undefined; onSave: (acl: JsonObject | null) => Promise<void>; onClose: () => void }) {
  const [entries, setEntries] = useState<Entry[]>(() => entriesOf(props.acl));
  const [who, setWho] = useState('');
  const [error, setError] = useState('');
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const set = (index: number, change: Partial<Entry>) => setEntries(entries.map((entry, i) => (i === index ? { ...entry, ...change } : entry)));
  const add = (event: Event) => {
    event.preventDefault();
    const name = who.trim();
    if (!PRINCIPAL.test(name)) return setError("A principal is *, a user's objectId or role:<name>.");
    if (entries.some((entry) => entry.who === name)) return setError(`${name} is listed already.`);
    setEntries([...entries, { who: name, read: true, write: false }]);
    setWho('');
    setError('');
  };
  const acl = (): JsonObject => {
    const out: JsonObject = {};
    for (const entry of entries) {
      if (!entry.read && !entry.write) continue;
      out[entry.who] = { ...(entry.read ? { read: true } : {}), ...(entry.write ? { write: true } : {}) };
    }
    return out;
  };
  return (
    <section class="panel" aria-label={`ACL of ${props.objectId}`} onKeyDown={(e) => e.key === 'Escape' && props.onClose()}>
      <h3>ACL of {props.objectId}</h3>
      {entries.length === 0 && <p class="meta">{props.acl === undefined ? 'No ACL: everyone may read and write.' : 'Empty: only the master key.'}</p>}
      <table class="compact">
        <thead>
          <tr>
            <th scope="col">Who</th>
            <th scope="col">Read</th>
            <th scope="col">Write</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry, i) => (
            <tr>
              <td>{entry.who === '*' ? '* (everyone)' : entry.who}</td>
              <td>
                <input type="checkbox" aria-label={`${entry.who} may read`} checked={entry.read} onChange={(e) => set(i, { read: e.currentTarget.checked })} />
              </td>
              <td>
                <input type="checkbox" aria-label={`${entry.who} may write`} checked={entry.write} onChange={(e) => set(i, { write: e.currentTarget.checked })} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <form class="inline" onSubmit={add}>
        <label>
          Add principal
          <input ref={input} name="principal" value={who} placeholder="*, user id or role:name" onInput={(e) => setWho(e.currentTarget.value)} />
        </label>
        <button type="submit">Add</button>
      </form>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={() => void props.onSave(acl())}>
          Save ACL
        </button>
        <button type="button" onClick={() => void props.onSave(null)}>
          No ACL (public)
        </button>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    </section>
  );
}

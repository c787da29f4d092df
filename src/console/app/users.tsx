import { useEffect, useState } from 'preact/hooks';
import { type Api, type JsonObject, errorText } from './api.js';
import { formatValue } from './values.js';
import { DataTable, Messages } from './parts.js';

/** Users: search by username, email or phone number; mark an email verified; send a password reset; revoke every session. */
export function Users(props: { api: Api }) {
  const [query, setQuery] = useState('');
  const [users, setUsers] = useState<JsonObject[]>([]);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const search = async (event?: Event) => {
    event?.preventDefault();
    const text = query.trim();
    const where = text ? { $or: [{ username: text }, { email: text }, { mobilePhoneNumber: text }, { objectId: text }] } : {};
    try {
      const reply = await props.api.request('GET', '/1/users', { query: { where: JSON.stringify(where), order: '-createdAt', limit: '50' } });
      setUsers((reply['results'] as JsonObject[]) ?? []);
      setError('');
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void search(), []);
  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setNotice(done);
      setError('');
      await search();
    } catch (failure) {
      setError(errorText(failure));
      setNotice('');
    }
  };
  return (
    <section class="content">
      <h2>Users</h2>
      <form onSubmit={search} class="filter">
        <label class="grow">
          Username, email, phone number or id
          <input name="userQuery" type="search" value={query} onInput={(e) => setQuery(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <Messages error={error} notice={notice} />
      <DataTable columns={['username', 'email', 'phone', 'created']} actions>
        {users.map((user) => {
          const id = String(user['objectId']);
          const email = typeof user['email'] === 'string' ? user['email'] : '';
          return (
            <tr>
              <td>{formatValue(user['username'])}</td>
              <td>
                {email} {email && (user['emailVerified'] === true ? <small>verified</small> : <small>not verified</small>)}
              </td>
              <td>{formatValue(user['mobilePhoneNumber'])}</td>
              <td>{formatValue(user['createdAt'])}</td>
              <td class="actions">
                {email && user['emailVerified'] !== true && (
                  <button type="button" onClick={() => void act(() => props.api.request('PUT', `/1/users/${encodeURIComponent(id)}`, { body: { emailVerified: true } }), `${email} marked verified.`)}>
                    Mark verified
                  </button>
                )}
                {email && (
                  <button type="button" onClick={() => void act(() => props.api.request('POST', '/1/requestPasswordReset', { body: { email } }), `Password reset sent to ${email}.`)}>
                    Send reset
                  </button>
                )}
                <button
                  type="button"
                  aria-label={`Sign out ${formatValue(user['username']) || id} everywhere`}
                  onClick={async () => {
                    try {
                      const reply = await props.api.request('DELETE', `/1/users/${encodeURIComponent(id)}/sessions`);
                      setNotice(`Revoked ${String(reply['revoked'])} sessions.`);
                      setError('');
                    } catch (failure) {
                      setError(errorText(failure));
                    }
                  }}
                    >
                  Sign out everywhere
                </button>
              </td>
            </tr>
          );
        })}
      </DataTable>
    </section>
  );
}

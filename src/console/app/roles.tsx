import { useEffect, useState } from 'preact/hooks';
import { type Api, type JsonObject, errorText } from './api.js';
import { DataTable, Messages } from './parts.js';

const related = (roleId: string, key: 'users' | 'roles') => JSON.stringify({ $relatedTo: { object: { __type: 'Pointer', className: '_Role', objectId: roleId }, key } });

/**
 * Roles (`/1/roles`): create and delete them, and manage the selected role's members, users and
 * child roles (the relations `users` and `roles`, whose members get the role's rights).
 */
export function Roles(props: { api: Api; selected: string | undefined }) {
  const { api, selected } = props;
  const [roles, setRoles] = useState<JsonObject[]>([]);
  const [users, setUsers] = useState<JsonObject[]>([]);
  const [children, setChildren] = useState<JsonObject[]>([]);
  const [name, setName] = useState('');
  const [user, setUser] = useState('');
  const [child, setChild] = useState('');
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const role = roles.find((r) => r['name'] === selected);
  const roleId = role ? String(role['objectId']) : undefined;

  const loadRoles = async () => {
    try {
      setRoles(((await api.request('GET', '/1/roles', { query: { order: 'name', limit: '1000' } }))['results'] as JsonObject[]) ?? []);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  const loadMembers = async (id: string) => {
    try {
      setUsers(((await api.request('GET', '/1/users', { query: { where: related(id, 'users'), order: 'username', limit: '1000' } }))['results'] as JsonObject[]) ?? []);
      setChildren(((await api.request('GET', '/1/roles', { query: { where: related(id, 'roles'), order: 'name', limit: '1000' } }))['results'] as JsonObject[]) ?? []);
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void loadRoles(), []);
  useEffect(() => {
    setUsers([]);
    setChildren([]);
    if (roleId) void loadMembers(roleId);
  }, [roleId]);

  const act = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setNotice(done);
      setError('');
      await loadRoles();
      if (roleId) await loadMembers(roleId);
      return true;
    } catch (failure) {
      setError(errorText(failure));
      setNotice('');
      return false;
    }
  };
  const create = async (event: Event) => {
    event.preventDefault();
    const text = name.trim();
    if (await act(() => api.request('POST', '/1/roles', { body: { name: text, ACL: { '*': { read: true } } } }), `Role ${text} created.`)) {
      setName('');
      location.hash = `#/roles/${encodeURIComponent(text)}`;
    }
  };
  const relation = (key: 'users' | 'roles', op: 'AddRelation' | 'RemoveRelation', objectId: string) => ({
    [key]: { __op: op, objects: [{ __type: 'Pointer', className: key === 'users' ? '_User' : '_Role', objectId }] },
  });
  const addUser = async (event: Event) => {
    event.preventDefault();
    const text = user.trim();
    const found = ((await api.request('GET', '/1/users', { query: { where: JSON.stringify({ $or: [{ username: text }, { objectId: text }, { email: text }] }), limit: '1' } }))['results'] as JsonObject[]) ?? [];
    if (found.length === 0) return setError(`No user ${text}.`);
    if (await act(() => api.request('PUT', `/1/roles/${roleId}`, { body: relation('users', 'AddRelation', String(found[0]!['objectId'])) }), `${text} added to ${selected}.`)) setUser('');
  };
  const addChild = async (event: Event) => {
    event.preventDefault();
    const other = roles.find((r) => r['name'] === child.trim());
    if (!other) return setError(`No role ${child.trim()}.`);
    if (await act(() => api.request('PUT', `/1/roles/${roleId}`, { body: relation('roles', 'AddRelation', String(other['objectId'])) }), `${child.trim()} is now a child of ${selected}.`)) setChild('');
  };

  return (
    <div class="split">
      <aside aria-label="Roles">
        <h2>Roles</h2>
        <ul class="tables">
          {roles.map((r) => (
            <li>
              <a href={`#/roles/${encodeURIComponent(String(r['name']))}`} aria-current={r['name'] === selected ? 'page' : undefined}>
                {String(r['name'])}
              </a>
            </li>
          ))}
        </ul>
        <form class="inline" onSubmit={create}>
          <label>
            New role
            <input name="roleName" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit">Create role</button>
        </form>
      </aside>
      <section class="content">
        <Messages error={error} notice={notice} />
        {!role ? (
          <p>Choose a role, or create one. Members of a role get the rights an ACL or a permission gives `role:&lt;name&gt;`.</p>
        ) : (
          <>
            <div class="title-row">
              <h2>{selected}</h2>
              <div class="actions">
                <button type="button" onClick={() => confirm(`Delete role ${selected}?`) && void act(() => api.request('DELETE', `/1/roles/${roleId}`), `Role ${selected} deleted.`).then((ok) => ok && (location.hash = '#/roles'))}>
                  Delete role
                </button>
              </div>
            </div>
            <h3>Users</h3>
            <DataTable columns={['username', 'email', 'objectId']} actions>
              {users.map((u) => (
                <tr>
                  <td>{String(u['username'] ?? '')}</td>
                  <td>{String(u['email'] ?? '')}</td>
                  <td>{String(u['objectId'])}</td>
                  <td>
                    <button type="button" aria-label={`Remove ${String(u['username'] ?? u['objectId'])} from ${selected}`} onClick={() => void act(() => api.request('PUT', `/1/roles/${roleId}`, { body: relation('users', 'RemoveRelation', String(u['objectId'])) }), `${String(u['username'] ?? u['objectId'])} removed.`)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </DataTable>
            <form class="inline" onSubmit={(e) => void addUser(e)}>
              <label>
                Add user (username, email or id)
                <input name="roleUser" value={user} onInput={(e) => setUser(e.currentTarget.value)} />
              </label>
              <button type="submit">Add user</button>
            </form>
            <h3>Child roles</h3>
            <DataTable columns={['role', 'objectId']} actions>
              {children.map((r) => (
                <tr>
                  <td>{String(r['name'])}</td>
                  <td>{String(r['objectId'])}</td>
                  <td>
                    <button type="button" aria-label={`Remove child role ${String(r['name'])}`} onClick={() => void act(() => api.request('PUT', `/1/roles/${roleId}`, { body: relation('roles', 'RemoveRelation', String(r['objectId'])) }), `${String(r['name'])} removed.`)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </DataTable>
            <form class="inline" onSubmit={addChild}>
              <label>
                Add child role
                <select name="childRole" value={child} onChange={(e) => setChild(e.currentTarget.value)}>
                  <option value="">—</option>
                  {roles
                    .filter((r) => r['name'] !== selected)
                    .map((r) => (
                      <option value={String(r['name'])}>{String(r['name'])}</option>
                    ))}
                </select>
              </label>
              <button type="submit" disabled={!child}>
                Add child role
              </button>
            </form>
          </>
        )}
      </section>
    </div>
  );
}

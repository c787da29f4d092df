import { useEffect, useState } from 'preact/hooks';
import { type Api, type JsonObject, errorText } from './api.js';
import { TableView } from './table-view.js';
import { Messages } from './parts.js';

export interface TableSchema {
  readonly className: string;
  readonly fields: Record<string, { type: string; targetClass?: string }>;
  readonly indexes?: Record<string, Record<string, unknown>>;
  readonly classLevelPermissions?: JsonObject;
}

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,99}$/;

/** The tables of the application (the schema API), and the one selected in the URL. */
export function Tables(props: { api: Api; selected: string | undefined; where: string | undefined }) {
  const [schemas, setSchemas] = useState<TableSchema[] | null>(null);
  const [error, setError] = useState('');
  const [newName, setNewName] = useState('');
  const load = async () => {
    try {
      const reply = await props.api.request('GET', '/1/schemas');
      setSchemas((reply['results'] as unknown as TableSchema[]) ?? []);
      setError('');
    } catch (failure) {
      setError(errorText(failure));
    }
  };
  useEffect(() => void load(), [props.api.credentials.applicationId]);
  const create = async (event: Event) => {
    event.preventDefault();
    if (!NAME.test(newName)) return setError('A table name starts with a letter and has letters, digits and _ only.');
    // An existing table is opened; a new one is created empty (its columns are added next).
    if (!schemas?.some((schema) => schema.className === newName)) {
      try {
        await props.api.request('POST', `/1/schemas/${encodeURIComponent(newName)}`, { body: { className: newName } });
        await load();
      } catch (failure) {
        return setError(errorText(failure));
      }
    }
    location.hash = `#/tables/${encodeURIComponent(newName)}`;
    setNewName('');
    setError('');
  };
  const selected = props.selected;
  return (
    <div class="split">
      <aside aria-label="Tables">
        <h2>Tables</h2>
        {schemas === null ? (
          <p>Loading…</p>
        ) : (
          <ul class="tables">
            {schemas.map((schema) => (
              <li>
                <a href={`#/tables/${encodeURIComponent(schema.className)}`} aria-current={schema.className === selected ? 'page' : undefined}>
                  {schema.className}
                </a>
              </li>
            ))}
          </ul>
        )}
        <form onSubmit={create} class="inline">
          <label>
            New table
            <input name="newTable" value={newName} placeholder="Name" onInput={(e) => setNewName(e.currentTarget.value)} />
          </label>
          <button type="submit">Create</button>
        </form>
        <Messages error={error} />
      </aside>
      <section class="content">
        {selected ? (
          <TableView key={`${selected}?${props.where ?? ''}`} api={props.api} table={selected} schema={schemas?.find((schema) => schema.className === selected)} initialWhere={props.where} onSchemaChanged={load} />
        ) : (
          <p>Choose a table, or create one.</p>
        )}
      </section>
    </div>
  );
}

export type { JsonObject };

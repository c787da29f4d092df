import { useEffect, useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, errorText, recordsPath } from './api.js';
import type { TableSchema } from './tables.js';
import { COLUMN_TYPES, editText, formatValue, parseTyped } from './values.js';
import { DataTable, Messages, Pager } from './parts.js';

const PAGE = 20;
const READ_ONLY = new Set(['objectId', 'createdAt', 'updatedAt']);
const OPERATORS = [
  ['=', 'equals'],
  ['$ne', 'is not'],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
  ['$exists', 'exists (true/false)'],
] as const;

interface Editing {
  readonly objectId: string;
  readonly column: string;
  readonly text: string;
}

/** One table: filter (where JSON or the builder), sort, pages, typed cell edits, rows and columns added or removed. */
export function TableView(props: { api: Api; table: string; schema: TableSchema | undefined; onSchemaChanged: () => void }) {
  const { api, table, schema } = props;
  const [where, setWhere] = useState('{}');
  const [order, setOrder] = useState('-createdAt');
  const [skip, setSkip] = useState(0);
  const [rows, setRows] = useState<JsonObject[]>([]);
  const [count, setCount] = useState(0);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<Editing | null>(null);
  const [newRow, setNewRow] = useState('{}');
  const [builder, setBuilder] = useState({ field: '', op: '=', value: '' });
  const [column, setColumn] = useState({ name: '', type: 'String', targetClass: '' });
  const [index, setIndex] = useState({ name: '', column: '' });
  const typeOf = (name: string) => schema?.fields[name]?.type;
  const columns = [...new Set(['objectId', ...Object.keys(schema?.fields ?? {}), ...rows.flatMap((row) => Object.keys(row))])].filter((name) => name !== 'ACL');

  const load = async (at = skip) => {
    let parsed: Json;
    try {
      parsed = JSON.parse(where) as Json;
    } catch {
      return setError('The filter is not JSON.');
    }
    try {
      const reply = await api.request('GET', recordsPath(table), { query: { where: JSON.stringify(parsed), order, limit: String(PAGE), skip: String(at), count: '1' } });
      setRows((reply['results'] as JsonObject[]) ?? []);
      setCount(Number(reply['count'] ?? 0));
      setError('');
    } catch (failure) {
      // A table that does not exist yet has no rows: its first row creates it.
      if (!schema && /^101\b/.test(errorText(failure))) {
        setRows([]);
        setCount(0);
        setError('');
      } else setError(errorText(failure));
    }
  };
  useEffect(() => void load(0), [table, order]);

  const run = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      setNotice(done);
      setError('');
      return true;
    } catch (failure) {
      setError(errorText(failure));
      setNotice('');
      return false;
    }
  };
  const saveCell = async () => {
    if (!editing) return;
    let value: Json;
    try {
      value = parseTyped(editing.text, typeOf(editing.column)) as Json;
    } catch (failure) {
      setNotice('');
      return setError(errorText(failure));
    }
    if (await run(() => api.request('PUT', `${recordsPath(table)}/${encodeURIComponent(editing.objectId)}`, { body: { [editing.column]: value } }), `Saved ${editing.column}.`)) {
      setEditing(null);
      await load();
      if (!schema?.fields[editing.column]) props.onSchemaChanged();
    }
  };
  const addRow = async (event: Event) => {
    event.preventDefault();
    let body: Json;
    try {
      body = JSON.parse(newRow) as Json;
    } catch {
      return setError('The new row is not JSON.');
    }
    if (await run(() => api.request('POST', recordsPath(table), { body }), 'Row added.')) {
      setNewRow('{}');
      await load(0);
      setSkip(0);
      props.onSchemaChanged();
    }
  };
  const deleteRow = async (objectId: string) => {
    if (!confirm(`Delete ${objectId}?`)) return;
    if (await run(() => api.request('DELETE', `${recordsPath(table)}/${encodeURIComponent(objectId)}`), `Deleted ${objectId}.`)) await load();
  };
  const addCondition = (event: Event) => {
    event.preventDefault();
    try {
      const current = JSON.parse(where) as JsonObject;
      const value = builder.op === '$exists' ? builder.value.trim() === 'true' : (parseTyped(builder.value, typeOf(builder.field)) as Json);
      const existing = current[builder.field];
      const conditions = typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? existing : {};
      current[builder.field] = builder.op === '=' ? value : { ...conditions, [builder.op]: value };
      setWhere(JSON.stringify(current));
      setError('');
    } catch (failure) {
      setError(`Filter: ${errorText(failure)}`);
    }
  };
  const schemaChange = async (body: JsonObject, done: string) => {
    const path = `/1/schemas/${encodeURIComponent(table)}`;
    if (await run(() => api.request(schema ? 'PUT' : 'POST', path, { body }), done)) props.onSchemaChanged();
  };
  const addColumn = (event: Event) => {
    event.preventDefault();
    const field: JsonObject = { type: column.type, ...(column.type === 'Pointer' || column.type === 'Relation' ? { targetClass: column.targetClass } : {}) };
    void schemaChange({ fields: { [column.name]: field } }, `Column ${column.name} added.`);
  };
  const dropColumn = (name: string) => {
    if (confirm(`Remove column ${name} and its data?`)) void schemaChange({ fields: { [name]: { __op: 'Delete' } } }, `Column ${name} removed.`);
  };
  const addIndex = (event: Event) => {
    event.preventDefault();
    void schemaChange({ indexes: { [index.name]: { [index.column]: 1 } } }, `Index ${index.name} added.`);
  };

  return (
    <div class="table-view">
      <h2>{table}</h2>
      <p class="meta">
        {count} rows{schema ? '' : ' (a new table: its first row creates it)'}
      </p>
      <form
        class="filter"
        onSubmit={(event) => {
          event.preventDefault();
          setSkip(0);
          void load(0);
        }}
      >
        <label class="grow">
          Filter (where JSON)
          <input name="where" value={where} onInput={(e) => setWhere(e.currentTarget.value)} spellcheck={false} />
        </label>
        <label>
          Sort by
          <select name="order" value={order} onChange={(e) => setOrder(e.currentTarget.value)}>
            {columns.flatMap((name) => [
              <option value={name}>{name} ↑</option>,
              <option value={`-${name}`}>{name} ↓</option>,
            ])}
            {!columns.includes('createdAt') && <option value="-createdAt">createdAt ↓</option>}
          </select>
        </label>
        <button type="submit">Apply</button>
      </form>
      <form class="filter builder" onSubmit={addCondition} aria-label="Filter builder">
        <label>
          Field
          <select name="builderField" value={builder.field} onChange={(e) => setBuilder({ ...builder, field: e.currentTarget.value })}>
            <option value="">—</option>
            {columns.map((name) => (
              <option value={name}>{name}</option>
            ))}
          </select>
        </label>
        <label>
          Condition
          <select name="builderOp" value={builder.op} onChange={(e) => setBuilder({ ...builder, op: e.currentTarget.value })}>
            {OPERATORS.map(([op, label]) => (
              <option value={op}>{label}</option>
            ))}
          </select>
        </label>
        <label>
          Value
          <input name="builderValue" value={builder.value} onInput={(e) => setBuilder({ ...builder, value: e.currentTarget.value })} />
        </label>
        <button type="submit" disabled={!builder.field}>
          Add to filter
        </button>
      </form>
      <Messages error={error} notice={notice} />
      <DataTable
        columns={columns.map((name) => (
          <>
            {name}
            {typeOf(name) && <small> {typeOf(name)}</small>}
          </>
        ))}
        actions
      >
        {rows.map((row) => {
          const objectId = String(row['objectId']);
          return (
            <tr>
              {columns.map((name) =>
                editing && editing.objectId === objectId && editing.column === name ? (
                  <td>
                    <input
                      aria-label={`${name} of ${objectId}`}
                      name="cell"
                      value={editing.text}
                      autoFocus
                      onInput={(e) => setEditing({ ...editing, text: e.currentTarget.value })}
                      onKeyDown={(e) => {
                        if (e.key === 'Enter') void saveCell();
                        if (e.key === 'Escape') setEditing(null);
                      }}
                    />
                    <button type="button" onClick={() => void saveCell()}>
                      Save
                    </button>
                  </td>
                ) : (
                  <td>
                    {READ_ONLY.has(name) || typeOf(name) === 'Relation' ? (
                      formatValue(row[name])
                    ) : (
                      <button type="button" class="cell" aria-label={`Edit ${name} of ${objectId}`} onClick={() => setEditing({ objectId, column: name, text: editText(row[name], typeOf(name)) })}>
                        {formatValue(row[name]) || '∅'}
                      </button>
                    )}
                  </td>
                ),
              )}
              <td>
                <button type="button" aria-label={`Delete row ${objectId}`} onClick={() => void deleteRow(objectId)}>
                  Delete
                </button>
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Pager
        onPrevious={skip > 0 ? () => (setSkip(Math.max(0, skip - PAGE)), void load(Math.max(0, skip - PAGE))) : undefined}
        onNext={skip + PAGE < count ? () => (setSkip(skip + PAGE), void load(skip + PAGE)) : undefined}
      >
        <span>
          {count === 0 ? 0 : skip + 1}–{Math.min(skip + PAGE, count)} of {count}
        </span>
      </Pager>
      <form onSubmit={addRow} class="stack">
        <label>
          New row (JSON)
          <textarea name="newRow" rows={3} value={newRow} onInput={(e) => setNewRow(e.currentTarget.value)} spellcheck={false} />
        </label>
        <button type="submit">Add row</button>
      </form>
      <details>
        <summary>Columns and indexes</summary>
        <form onSubmit={addColumn} class="filter">
          <label>
            Column
            <input name="columnName" value={column.name} onInput={(e) => setColumn({ ...column, name: e.currentTarget.value })} />
          </label>
          <label>
            Type
            <select name="columnType" value={column.type} onChange={(e) => setColumn({ ...column, type: e.currentTarget.value })}>
              {COLUMN_TYPES.map((type) => (
                <option value={type}>{type}</option>
              ))}
            </select>
          </label>
          {(column.type === 'Pointer' || column.type === 'Relation') && (
            <label>
              Target table
              <input name="targetClass" value={column.targetClass} onInput={(e) => setColumn({ ...column, targetClass: e.currentTarget.value })} />
            </label>
          )}
          <button type="submit">Add column</button>
        </form>
        <ul class="columns">
          {Object.entries(schema?.fields ?? {})
            .filter(([name]) => !READ_ONLY.has(name) && name !== 'ACL')
            .map(([name, field]) => (
              <li>
                {name} <small>{field.type}</small>{' '}
                <button type="button" onClick={() => dropColumn(name)}>
                  Remove
                </button>
              </li>
            ))}
        </ul>
        <form onSubmit={addIndex} class="filter">
          <label>
            Index name
            <input name="indexName" value={index.name} onInput={(e) => setIndex({ ...index, name: e.currentTarget.value })} />
          </label>
          <label>
            On column
            <select name="indexColumn" value={index.column} onChange={(e) => setIndex({ ...index, column: e.currentTarget.value })}>
              <option value="">—</option>
              {columns.map((name) => (
                <option value={name}>{name}</option>
              ))}
            </select>
          </label>
          <button type="submit">Add index</button>
        </form>
        <p class="meta">Indexes: {Object.keys(schema?.indexes ?? {}).join(', ') || 'none'}</p>
      </details>
    </div>
  );
}

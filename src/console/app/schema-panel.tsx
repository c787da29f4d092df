import { useState } from 'preact/hooks';
import { type Api, type JsonObject, allRecords, bulk, errorText } from './api.js';
import { ClpEditor } from './clp-editor.js';
import type { TableSchema } from './tables.js';
import { COLUMN_TYPES } from './values.js';

const FIXED = new Set(['objectId', 'createdAt', 'updatedAt', 'ACL']);

/**
 * A table's schema: columns added (with their type) and removed, indexes added (one or more
 * columns, unique or not) and removed, its class-level permissions, its rows deleted, and the
 * table dropped once empty. Every change goes through the schema API (`/1/schemas/:table`).
 */
export function SchemaPanel(props: { api: Api; table: string; schema: TableSchema | undefined; onChanged: () => void; onNotice: (notice: string, error?: boolean) => void; onRowsChanged: () => void }) {
  const { api, table, schema } = props;
  const [column, setColumn] = useState({ name: '', type: 'String', targetClass: '' });
  const [index, setIndex] = useState({ name: '', columns: '', unique: false });
  const fields = Object.entries(schema?.fields ?? {}).filter(([name]) => !FIXED.has(name));
  const path = `/1/schemas/${encodeURIComponent(table)}`;

  const change = async (body: JsonObject, done: string) => {
    try {
      await api.request(schema ? 'PUT' : 'POST', path, { body });
      props.onNotice(done);
      props.onChanged();
    } catch (failure) {
      props.onNotice(errorText(failure), true);
    }
  };
  const addColumn = (event: Event) => {
    event.preventDefault();
    const field: JsonObject = { type: column.type, ...(column.type === 'Pointer' || column.type === 'Relation' ? { targetClass: column.targetClass } : {}) };
    void change({ fields: { [column.name]: field } }, `Column ${column.name} added.`);
  };
  const addIndex = (event: Event) => {
    event.preventDefault();
    const spec: JsonObject = {};
    for (const name of index.columns.split(',').map((c) => c.trim()).filter(Boolean)) spec[name] = 1;
    if (index.unique) spec['$unique'] = true;
    void change({ indexes: { [index.name]: spec } }, `Index ${index.name} added.`);
  };
  const deleteRows = async () => {
    if (!confirm(`Delete every row of ${table}?`)) return;
    try {
      const rows = await allRecords(api, table, {});
      const result = await bulk(api, table, rows.map((row) => ({ method: 'DELETE' as const, objectId: String(row['objectId']) })));
      props.onNotice(result.failed.length === 0 ? `Deleted ${result.done} rows.` : `Deleted ${result.done} rows; ${result.failed.length} refused (${result.failed[0]!.error}).`, result.failed.length > 0);
      props.onRowsChanged();
    } catch (failure) {
      props.onNotice(errorText(failure), true);
    }
  };
  const drop = async () => {
    if (!confirm(`Drop table ${table}? It must be empty.`)) return;
    try {
      await api.request('DELETE', path);
      props.onNotice(`Table ${table} dropped.`);
      props.onChanged();
      location.hash = '#/tables';
    } catch (failure) {
      props.onNotice(errorText(failure), true);
    }
  };

  return (
    <div class="schema-panel">
      <section class="panel" aria-label="Columns">
        <h3>Columns</h3>
        <ul class="columns">
          {fields.map(([name, field]) => (
            <li>
              <span>
                {name} <small>{field.type}{field.targetClass ? ` → ${field.targetClass}` : ''}</small>
              </span>
              <button type="button" aria-label={`Remove column ${name}`} onClick={() => confirm(`Remove column ${name} and its data?`) && void change({ fields: { [name]: { __op: 'Delete' } } }, `Column ${name} removed.`)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <form onSubmit={addColumn} class="inline">
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
      </section>
      <section class="panel" aria-label="Indexes">
        <h3>Indexes</h3>
        <ul class="columns">
          {Object.entries(schema?.indexes ?? {}).map(([name, spec]) => (
            <li>
              <span>
                {name}{' '}
                <small>
                  {Object.keys(spec).filter((key) => key !== '$unique').join(', ')}
                  {spec['$unique'] === true ? ', unique' : ''}
                </small>
              </span>
              <button type="button" aria-label={`Remove index ${name}`} onClick={() => void change({ indexes: { [name]: { __op: 'Delete' } } }, `Index ${name} removed.`)}>
                Remove
              </button>
            </li>
          ))}
        </ul>
        <form onSubmit={addIndex} class="inline">
          <label>
            Index name
            <input name="indexName" value={index.name} onInput={(e) => setIndex({ ...index, name: e.currentTarget.value })} />
          </label>
          <label>
            On columns
            <input name="indexColumns" value={index.columns} placeholder="a, b" onInput={(e) => setIndex({ ...index, columns: e.currentTarget.value })} />
          </label>
          <label class="check">
            <input type="checkbox" name="indexUnique" checked={index.unique} onChange={(e) => setIndex({ ...index, unique: e.currentTarget.checked })} />
            Unique
          </label>
          <button type="submit">Add index</button>
        </form>
      </section>
      <ClpEditor
        key={JSON.stringify(schema?.classLevelPermissions ?? null)}
        table={table}
        permissions={schema?.classLevelPermissions}
        pointerColumns={fields.filter(([, field]) => field.type === 'Pointer').map(([name]) => name)}
        onSave={(clp) => change({ classLevelPermissions: clp }, clp ? 'Permissions saved.' : 'Permissions removed: open to everyone.')}
      />
      <section class="panel danger" aria-label="Delete">
        <h3>Delete</h3>
        <div class="actions">
          <button type="button" onClick={() => void deleteRows()}>
            Delete all rows
          </button>
          <button type="button" onClick={() => void drop()}>
            Drop table
          </button>
        </div>
      </section>
    </div>
  );
}

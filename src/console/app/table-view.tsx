import { useEffect, useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, bulk, errorText, recordsPath } from './api.js';
import { AclEditor } from './acl-editor.js';
import { type CellTarget, type CellValue, CellEditor } from './cell-editor.js';
import { Messages, Pager } from './parts.js';
import { SchemaPanel } from './schema-panel.js';
import type { TableSchema } from './tables.js';
import { TransferPanel } from './transfer-panel.js';
import { formatValue, isImage, parseTyped } from './values.js';

const PAGE = 20;
const READ_ONLY = new Set(['objectId', 'createdAt', 'updatedAt']);
/** Types whose values are short and never wrap (a date cut at its hyphens reads badly). */
const SHORT = new Set(['Date', 'Number', 'Boolean', 'GeoPoint', 'Pointer', 'File']);
const OPERATORS = [
  ['=', 'equals'],
  ['$ne', 'is not'],
  ['$gt', '>'],
  ['$gte', '≥'],
  ['$lt', '<'],
  ['$lte', '≤'],
  ['$exists', 'exists (true/false)'],
] as const;

type Panel = 'none' | 'schema' | 'transfer';

/** The link that opens a table filtered by a where (pointers and relations are followed this way). */
export function tableLink(table: string, where: Json): string {
  return `#/tables/${encodeURIComponent(table)}?where=${encodeURIComponent(JSON.stringify(where))}`;
}

/** The owner and column of a `$relatedTo` where, when the view shows a relation's members. */
function relationOf(where: string): { className: string; objectId: string; key: string } | null {
  try {
    const parsed = JSON.parse(where) as JsonObject;
    const related = parsed['$relatedTo'] as JsonObject | undefined;
    const object = related?.['object'] as JsonObject | undefined;
    if (typeof object?.['className'] === 'string' && typeof object['objectId'] === 'string' && typeof related?.['key'] === 'string') return { className: object['className'], objectId: object['objectId'], key: related['key'] };
  } catch {
    // Not JSON yet (being typed): no relation.
  }
  return null;
}

/** Moves focus between grid cells with the arrow keys (each cell holds one button or link). */
function gridKeys(event: KeyboardEvent): void {
  const cell = (event.target as HTMLElement).closest('td');
  const row = cell?.parentElement as HTMLTableRowElement | null;
  if (!cell || !row || !['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight'].includes(event.key)) return;
  if ((event.target as HTMLElement).matches('input, textarea, select')) return;
  const column = (cell as HTMLTableCellElement).cellIndex;
  const rows = [...(row.parentElement?.children ?? [])] as HTMLTableRowElement[];
  const r = rows.indexOf(row) + (event.key === 'ArrowDown' ? 1 : event.key === 'ArrowUp' ? -1 : 0);
  const c = column + (event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0);
  const target = rows[r]?.cells[c]?.querySelector<HTMLElement>('button, a, input');
  if (target) {
    event.preventDefault();
    target.focus();
  }
}

/**
 * One table, as a data browser: filter (where JSON or the builder), sort, pages, cells edited in
 * place by type, pointers and relations followed, a row's ACL, rows selected and deleted together,
 * import and export, and the table's schema (columns, indexes, permissions, drop).
 */
export function TableView(props: { api: Api; table: string; schema: TableSchema | undefined; initialWhere: string | undefined; onSchemaChanged: () => void }) {
  const { api, table, schema } = props;
  const [where, setWhere] = useState(props.initialWhere ?? '{}');
  const [applied, setApplied] = useState<Json>(() => {
    try {
      return JSON.parse(props.initialWhere ?? '{}') as Json;
    } catch {
      return {};
    }
  });
  const [order, setOrder] = useState('-createdAt');
  const [skip, setSkip] = useState(0);
  const [rows, setRows] = useState<JsonObject[]>([]);
  const [count, setCount] = useState(0);
  const [loaded, setLoaded] = useState(false);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [editing, setEditing] = useState<CellTarget | null>(null);
  const [aclOf, setAclOf] = useState<JsonObject | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [newRow, setNewRow] = useState('{}');
  const [member, setMember] = useState('');
  const [builder, setBuilder] = useState({ field: '', op: '=', value: '' });
  const [panel, setPanel] = useState<Panel>('none');
  const field = (name: string) => schema?.fields[name];
  const columns = [...new Set(['objectId', ...Object.keys(schema?.fields ?? {}), ...rows.flatMap((row) => Object.keys(row))])].filter((name) => name !== 'ACL');
  const relation = relationOf(JSON.stringify(applied));
  const say = (text: string, failed = false) => {
    if (failed) {
      setError(text);
      setNotice('');
    } else {
      setNotice(text);
      setError('');
    }
  };

  const load = async (at = skip, filter: Json = applied) => {
    try {
      const reply = await api.request('GET', recordsPath(table), { query: { where: JSON.stringify(filter), order, limit: String(PAGE), skip: String(at), count: '1' } });
      setRows((reply['results'] as JsonObject[]) ?? []);
      setCount(Number(reply['count'] ?? 0));
      setSelected(new Set());
    } catch (failure) {
      // A table that does not exist yet has no rows: its first row creates it.
      if (!schema && /^101\b/.test(errorText(failure))) {
        setRows([]);
        setCount(0);
      } else say(errorText(failure), true);
    } finally {
      setLoaded(true);
    }
  };
  useEffect(() => void load(0), [table, order]);

  const apply = (event?: Event) => {
    event?.preventDefault();
    let parsed: Json;
    try {
      parsed = JSON.parse(where) as Json;
    } catch {
      return say('The filter is not JSON.', true);
    }
    setApplied(parsed);
    setSkip(0);
    setError('');
    void load(0, parsed);
  };
  const run = async (work: () => Promise<unknown>, done: string) => {
    try {
      await work();
      say(done);
      return true;
    } catch (failure) {
      say(errorText(failure), true);
      return false;
    }
  };
  const rowPath = (objectId: string) => `${recordsPath(table)}/${encodeURIComponent(objectId)}`;
  const saveCell = async (value: CellValue) => {
    if (!editing) return;
    const target = editing;
    if (await run(() => api.request('PUT', rowPath(target.objectId), { body: { [target.column]: value as Json } }), `Saved ${target.column}.`)) {
      setEditing(null);
      await load();
      if (!field(target.column)) props.onSchemaChanged();
    }
  };
  const saveAcl = async (acl: JsonObject | null) => {
    if (!aclOf) return;
    const objectId = String(aclOf['objectId']);
    if (await run(() => api.request('PUT', rowPath(objectId), { body: { ACL: acl ?? { __op: 'Delete' } } }), `ACL of ${objectId} saved.`)) {
      setAclOf(null);
      await load();
    }
  };
  const addRow = async (event: Event) => {
    event.preventDefault();
    let body: Json;
    try {
      body = JSON.parse(newRow) as Json;
    } catch {
      return say('The new row is not JSON.', true);
    }
    if (await run(() => api.request('POST', recordsPath(table), { body }), 'Row added.')) {
      setNewRow('{}');
      setSkip(0);
      await load(0);
      props.onSchemaChanged();
    }
  };
  const deleteRows = async (ids: readonly string[]) => {
    if (ids.length === 0 || !confirm(ids.length === 1 ? `Delete ${ids[0]}?` : `Delete ${ids.length} rows?`)) return;
    try {
      const result = await bulk(api, table, ids.map((objectId) => ({ method: 'DELETE' as const, objectId })));
      say(result.failed.length === 0 ? (ids.length === 1 ? `Deleted ${ids[0]}.` : `Deleted ${result.done} rows.`) : `Deleted ${result.done} rows; ${result.failed.length} refused: ${result.failed[0]!.error}`, result.failed.length > 0);
    } catch (failure) {
      say(errorText(failure), true);
    }
    await load();
  };
  const relate = async (op: 'AddRelation' | 'RemoveRelation', objectId: string) => {
    if (!relation) return;
    const pointer = { __type: 'Pointer', className: table, objectId };
    const path = `${recordsPath(relation.className)}/${encodeURIComponent(relation.objectId)}`;
    if (await run(() => api.request('PUT', path, { body: { [relation.key]: { __op: op, objects: [pointer] } } }), op === 'AddRelation' ? `${objectId} added to ${relation.key}.` : `${objectId} removed from ${relation.key}.`)) {
      setMember('');
      await load();
    }
  };
  const addCondition = (event: Event) => {
    event.preventDefault();
    try {
      const current = JSON.parse(where) as JsonObject;
      const value = builder.op === '$exists' ? builder.value.trim() === 'true' : (parseTyped(builder.value, field(builder.field)?.type) as Json);
      const existing = current[builder.field];
      const conditions = typeof existing === 'object' && existing !== null && !Array.isArray(existing) ? existing : {};
      current[builder.field] = builder.op === '=' ? value : { ...conditions, [builder.op]: value };
      setWhere(JSON.stringify(current));
      setError('');
    } catch (failure) {
      say(`Filter: ${errorText(failure)}`, true);
    }
  };
  const toggle = (objectId: string, on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(objectId);
    else next.delete(objectId);
    setSelected(next);
  };

  const cell = (row: JsonObject, name: string) => {
    const objectId = String(row['objectId']);
    const value = row[name];
    const type = field(name)?.type;
    if (editing && editing.objectId === objectId && editing.column === name) {
      return <CellEditor api={api} target={editing} onSave={saveCell} onCancel={() => setEditing(null)} onError={(message) => say(message, true)} />;
    }
    if (READ_ONLY.has(name)) return <span class="nowrap">{formatValue(value)}</span>;
    if (type === 'Relation') {
      const target = field(name)?.targetClass ?? '';
      return (
        <a href={tableLink(target, { $relatedTo: { object: { __type: 'Pointer', className: table, objectId }, key: name } })} aria-label={`Open ${name} of ${objectId}`}>
          {target} →
        </a>
      );
    }
    const edit = (
      <button type="button" class={type && SHORT.has(type) ? 'cell nowrap' : 'cell'} aria-label={`Edit ${name} of ${objectId}`} onClick={() => setEditing({ objectId, column: name, type, targetClass: field(name)?.targetClass, value })}>
        {isImage(value) ? <img class="thumb" src={String((value as JsonObject)['url'])} alt="" /> : null}
        {formatValue(value) || '∅'}
      </button>
    );
    if (typeof value === 'object' && value !== null && !Array.isArray(value) && value['__type'] === 'Pointer') {
      return (
        <span class="pointer">
          {edit}
          <a href={tableLink(String(value['className']), { objectId: String(value['objectId']) })} aria-label={`Follow ${name} of ${objectId}`}>
            →
          </a>
        </span>
      );
    }
    return edit;
  };

  const ids = rows.map((row) => String(row['objectId']));
  return (
    <div class="table-view">
      <div class="title-row">
        <h2>{table}</h2>
        <p class="meta">
          {count} rows{schema ? '' : ' (a new table: its first row creates it)'}
        </p>
        <div class="actions">
          <button type="button" aria-pressed={panel === 'schema'} onClick={() => setPanel(panel === 'schema' ? 'none' : 'schema')}>
            Schema and permissions
          </button>
          <button type="button" aria-pressed={panel === 'transfer'} onClick={() => setPanel(panel === 'transfer' ? 'none' : 'transfer')}>
            Import and export
          </button>
        </div>
      </div>
      {panel === 'schema' && <SchemaPanel api={api} table={table} schema={schema} onChanged={props.onSchemaChanged} onNotice={say} onRowsChanged={() => void load(0)} />}
      {panel === 'transfer' && <TransferPanel api={api} table={table} schema={schema} where={applied} onNotice={say} onImported={() => (void load(0), props.onSchemaChanged())} />}
      {relation && (
        <form
          class="inline relation"
          aria-label="Relation members"
          onSubmit={(event) => {
            event.preventDefault();
            void relate('AddRelation', member.trim());
          }}
        >
          <span>
            Members of <a href={tableLink(relation.className, { objectId: relation.objectId })}>{relation.className} {relation.objectId}</a>.{relation.key}
          </span>
          <label>
            Add member (objectId)
            <input name="member" value={member} onInput={(e) => setMember(e.currentTarget.value)} />
          </label>
          <button type="submit" disabled={!member.trim()}>
            Add to relation
          </button>
        </form>
      )}
      <form class="filter" onSubmit={apply}>
        <label class="grow">
          Filter (where JSON)
          <input name="where" value={where} onInput={(e) => setWhere(e.currentTarget.value)} spellcheck={false} />
        </label>
        <label>
          Sort by
          <select name="order" value={order} onChange={(e) => setOrder(e.currentTarget.value)}>
            {columns.flatMap((name) => [<option value={name}>{name} ↑</option>, <option value={`-${name}`}>{name} ↓</option>])}
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
      {aclOf && <AclEditor key={String(aclOf['objectId'])} objectId={String(aclOf['objectId'])} acl={aclOf['ACL']} onSave={saveAcl} onClose={() => setAclOf(null)} />}
      <div class="bulk actions">
        <button type="button" disabled={selected.size === 0} onClick={() => void deleteRows([...selected])}>
          Delete selected ({selected.size})
        </button>
      </div>
      <div class="scroll">
        <table class="grid" aria-label={`Rows of ${table}`} aria-busy={!loaded} onKeyDown={gridKeys}>
          <thead>
            <tr>
              <th scope="col">
                <input type="checkbox" aria-label="Select every row of the page" checked={ids.length > 0 && ids.every((id) => selected.has(id))} onChange={(e) => setSelected(e.currentTarget.checked ? new Set(ids) : new Set())} />
              </th>
              {columns.map((name) => (
                <th scope="col">
                  {name}
                  {field(name) && <small> {field(name)!.type}</small>}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => {
              const objectId = String(row['objectId']);
              return (
                <tr aria-selected={selected.has(objectId)}>
                  <td>
                    <input type="checkbox" aria-label={`Select ${objectId}`} checked={selected.has(objectId)} onChange={(e) => toggle(objectId, e.currentTarget.checked)} />
                  </td>
                  {columns.map((name) => (
                    <td class={editing?.objectId === objectId && editing.column === name ? 'editing' : undefined}>{cell(row, name)}</td>
                  ))}
                  <td class="actions nowrap">
                    <button type="button" aria-label={`ACL of ${objectId}`} onClick={() => setAclOf(row)}>
                      ACL
                    </button>
                    {relation && (
                      <button type="button" aria-label={`Remove ${objectId} from the relation`} onClick={() => void relate('RemoveRelation', objectId)}>
                        Unlink
                      </button>
                    )}
                    <button type="button" aria-label={`Delete row ${objectId}`} onClick={() => void deleteRows([objectId])}>
                      Delete
                    </button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
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
    </div>
  );
}

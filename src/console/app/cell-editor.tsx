import { useEffect, useRef, useState } from 'preact/hooks';
import { type Api, type Json, type JsonObject, errorText, recordsPath } from './api.js';
import { dateFromInput, dateInput, editText, formatValue, geoPoint, isImage, parseTyped } from './values.js';

export interface CellTarget {
  readonly objectId: string;
  readonly column: string;
  /** The column's type in the schema (undefined for a column the schema does not list yet). */
  readonly type: string | undefined;
  readonly targetClass: string | undefined;
  readonly value: Json | undefined;
}

/** A new value, or the Delete operation that empties the cell. */
export type CellValue = Json | { __op: 'Delete' };

/**
 * The in-place editor of one cell, by the column's type: a date picker for a Date, a record picker
 * for a Pointer, an upload with a preview for a File, two fields for a GeoPoint, a JSON editor for
 * an Object or an Array, a choice for a Boolean, a text field otherwise. Enter saves (Ctrl+Enter in
 * the JSON editor), Escape gives up; a value that does not read as the type is refused before saving.
 */
export function CellEditor(props: { api: Api; target: CellTarget; onSave: (value: CellValue) => Promise<void>; onCancel: () => void; onError: (message: string) => void }) {
  const { api, target } = props;
  const label = `${target.column} of ${target.objectId}`;
  const [text, setText] = useState(() =>
    target.type === 'Pointer' && typeof target.value === 'object' && target.value !== null && !Array.isArray(target.value) ? String(target.value['objectId'] ?? '') : editText(target.value, target.type),
  );
  const [date, setDate] = useState(() => dateInput(target.value));
  const point = typeof target.value === 'object' && target.value !== null && !Array.isArray(target.value) ? target.value : {};
  const [lat, setLat] = useState(point['latitude'] === undefined ? '' : String(point['latitude']));
  const [lng, setLng] = useState(point['longitude'] === undefined ? '' : String(point['longitude']));
  const [file, setFile] = useState<JsonObject | null>(null);
  const [busy, setBusy] = useState(false);
  const [choices, setChoices] = useState<JsonObject[]>([]);
  const box = useRef<HTMLDivElement>(null);
  // An editor opened from the keyboard takes the keyboard (autofocus works only when a page loads).
  useEffect(() => box.current?.querySelector<HTMLElement>('input, select, textarea')?.focus(), []);

  useEffect(() => {
    if (target.type !== 'Pointer' || !target.targetClass) return;
    // The picker's list: the target table's newest records (typing an id not listed works too).
    api.request('GET', recordsPath(target.targetClass), { query: { limit: '100', order: '-updatedAt' } }).then(
      (reply) => setChoices((reply['results'] as JsonObject[]) ?? []),
      () => setChoices([]),
    );
  }, [target.targetClass]);

  const save = async () => {
    let value: CellValue;
    try {
      switch (target.type) {
        case 'Date':
          value = dateFromInput(date);
          break;
        case 'GeoPoint':
          value = geoPoint(lat, lng);
          break;
        case 'File':
          value = file ?? (target.value === undefined ? { __op: 'Delete' } : (target.value as Json));
          break;
        case 'Pointer':
          value = text.trim() === '' ? { __op: 'Delete' } : { __type: 'Pointer', className: target.targetClass ?? '', objectId: text.trim() };
          break;
        default:
          value = parseTyped(text, target.type);
      }
    } catch (error) {
      return props.onError(errorText(error));
    }
    setBusy(true);
    try {
      await props.onSave(value);
    } finally {
      setBusy(false);
    }
  };
  const keys = (event: KeyboardEvent, multiline = false) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      props.onCancel();
    } else if (event.key === 'Enter' && (!multiline || event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void save();
    }
  };
  const actions = (
    <span class="actions">
      <button type="button" onClick={() => void save()} disabled={busy}>
        Save
      </button>
      <button type="button" onClick={props.onCancel}>
        Cancel
      </button>
    </span>
  );

  switch (target.type) {
    case 'Date':
      return (
        <div ref={box} class="editor">
          <input type="datetime-local" step="1" aria-label={label} value={date} autoFocus onInput={(e) => setDate(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          {actions}
        </div>
      );
    case 'Boolean':
      return (
        <div ref={box} class="editor">
          <select aria-label={label} value={text} autoFocus onChange={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => keys(e)}>
            <option value="">(none)</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
          {actions}
        </div>
      );
    case 'Number':
      return (
        <div ref={box} class="editor">
          <input aria-label={label} inputMode="decimal" value={text} autoFocus onInput={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          {actions}
        </div>
      );
    case 'GeoPoint':
      return (
        <div ref={box} class="editor" role="group" aria-label={label}>
          <label>
            Latitude
            <input inputMode="decimal" value={lat} autoFocus onInput={(e) => setLat(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          </label>
          <label>
            Longitude
            <input inputMode="decimal" value={lng} onInput={(e) => setLng(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          </label>
          {actions}
        </div>
      );
    case 'Pointer': {
      const listId = `choices-${target.column}`;
      return (
        <div ref={box} class="editor">
          <input aria-label={label} list={listId} value={text} autoFocus placeholder={`${target.targetClass ?? ''} objectId`} onInput={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          <datalist id={listId}>
            {choices.map((record) => (
              <option value={String(record['objectId'])}>{summary(record)}</option>
            ))}
          </datalist>
          {actions}
        </div>
      );
    }
    case 'File': {
      const shown = file ?? target.value;
      return (
        <div ref={box} class="editor" role="group" aria-label={label}>
          {isImage(shown) && <img class="preview" src={String((shown as JsonObject)['url'])} alt={`Preview of ${formatValue(shown)}`} />}
          <label>
            Upload a file
            <input
              type="file"
              autoFocus
              onChange={async (e) => {
                const chosen = e.currentTarget.files?.[0];
                if (!chosen) return;
                setBusy(true);
                try {
                  setFile(await api.upload(chosen));
                } catch (error) {
                  props.onError(errorText(error));
                } finally {
                  setBusy(false);
                }
              }}
              onKeyDown={(e) => keys(e)}
            />
          </label>
          {shown !== undefined && <span class="meta">{file ? `uploaded ${formatValue(file)}` : formatValue(shown)}</span>}
          {actions}
        </div>
      );
    }
    case 'Object':
    case 'Array':
    case 'ACL':
      return (
        <div ref={box} class="editor wide">
          <textarea class="code" rows={8} aria-label={label} value={text} autoFocus spellcheck={false} onInput={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => keys(e, true)} />
          <small class="meta">JSON; Ctrl+Enter saves</small>
          {actions}
        </div>
      );
    default:
      return (
        <div ref={box} class="editor">
          <input aria-label={label} value={text} autoFocus onInput={(e) => setText(e.currentTarget.value)} onKeyDown={(e) => keys(e)} />
          {actions}
        </div>
      );
  }
}

/** A record in a picker: its id and the first of name, title, username, email. */
export function summary(record: JsonObject): string {
  for (const key of ['name', 'title', 'username', 'email', 'label']) if (typeof record[key] === 'string') return `${String(record['objectId'])} · ${String(record[key])}`;
  return String(record['objectId']);
}

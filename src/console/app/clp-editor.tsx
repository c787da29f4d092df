import { useState } from 'preact/hooks';
import type { Json, JsonObject } from './api.js';

const OPERATIONS = ['get', 'find', 'count', 'create', 'update', 'delete', 'addField'] as const;
type Operation = (typeof OPERATIONS)[number];

interface Rule {
  everyone: boolean;
  signedIn: boolean;
  /** User ids and `role:<name>`, comma-separated. */
  principals: string;
  /** Pointer columns (pointer permissions of this operation), comma-separated. */
  pointerFields: string;
}

const list = (text: string) => text.split(',').map((item) => item.trim()).filter(Boolean);
const isObject = (value: Json | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

function ruleOf(value: Json | undefined): Rule {
  // No rule is open to everyone (the default of a new table).
  if (!isObject(value)) return { everyone: true, signedIn: false, principals: '', pointerFields: '' };
  const principals = Object.keys(value).filter((key) => key !== '*' && key !== 'requiresAuthentication' && key !== 'pointerFields' && value[key] === true);
  const pointer = Array.isArray(value['pointerFields']) ? value['pointerFields'].map(String) : [];
  return { everyone: value['*'] === true, signedIn: value['requiresAuthentication'] === true, principals: principals.join(', '), pointerFields: pointer.join(', ') };
}

/**
 * A table's class-level permissions in Parse Server's form (docs/access-control.md): per operation
 * everyone, any signed-in user, listed users and roles, and pointer fields; `readUserFields` and
 * `writeUserFields`; protected fields per principal. Nothing ticked is the master key only.
 */
export function ClpEditor(props: { table: string; permissions: Json | undefined; pointerColumns: readonly string[]; onSave: (clp: JsonObject | null) => Promise<void> }) {
  const given = isObject(props.permissions) ? props.permissions : {};
  const [rules, setRules] = useState<Record<Operation, Rule>>(() => Object.fromEntries(OPERATIONS.map((op) => [op, ruleOf(given[op])])) as Record<Operation, Rule>);
  const [readUserFields, setReadUserFields] = useState(Array.isArray(given['readUserFields']) ? given['readUserFields'].map(String).join(', ') : '');
  const [writeUserFields, setWriteUserFields] = useState(Array.isArray(given['writeUserFields']) ? given['writeUserFields'].map(String).join(', ') : '');
  const [protectedFields, setProtectedFields] = useState(() =>
    Object.entries(isObject(given['protectedFields']) ? given['protectedFields'] : {})
      .map(([who, fields]) => `${who}: ${Array.isArray(fields) ? fields.map(String).join(', ') : ''}`)
      .join('\n'),
  );
  const [error, setError] = useState('');
  const set = (op: Operation, change: Partial<Rule>) => setRules({ ...rules, [op]: { ...rules[op], ...change } });

  const wire = (): JsonObject => {
    const out: JsonObject = {};
    for (const op of OPERATIONS) {
      const rule = rules[op];
      const entry: JsonObject = {};
      if (rule.everyone) entry['*'] = true;
      if (rule.signedIn) entry['requiresAuthentication'] = true;
      for (const who of list(rule.principals)) entry[who] = true;
      const pointers = list(rule.pointerFields);
      if (pointers.length > 0) entry['pointerFields'] = pointers;
      out[op] = entry;
    }
    if (list(readUserFields).length > 0) out['readUserFields'] = list(readUserFields);
    if (list(writeUserFields).length > 0) out['writeUserFields'] = list(writeUserFields);
    const hidden: JsonObject = {};
    for (const line of protectedFields.split('\n')) {
      if (line.trim() === '') continue;
      const colon = line.indexOf(':');
      if (colon < 1) throw new Error(`protected fields: '${line.trim()}' is not "who: field, field"`);
      hidden[line.slice(0, colon).trim()] = list(line.slice(colon + 1));
    }
    out['protectedFields'] = hidden;
    return out;
  };
  const save = (event: Event) => {
    event.preventDefault();
    let clp: JsonObject;
    try {
      clp = wire();
    } catch (failure) {
      return setError(failure instanceof Error ? failure.message : String(failure));
    }
    setError('');
    void props.onSave(clp);
  };
  const pointerHint = props.pointerColumns.length > 0 ? `Pointer columns: ${props.pointerColumns.join(', ')}` : 'This table has no Pointer column.';
  return (
    <form class="panel" aria-label={`Permissions of ${props.table}`} onSubmit={save}>
      <h3>Class-level permissions</h3>
      <p class="meta">Nothing ticked or listed: only the master key. {pointerHint}</p>
      <div class="scroll">
        <table class="compact">
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Everyone</th>
              <th scope="col">Signed in</th>
              <th scope="col">Users and roles</th>
              <th scope="col">Pointer fields</th>
            </tr>
          </thead>
          <tbody>
            {OPERATIONS.map((op) => (
              <tr>
                <th scope="row">{op}</th>
                <td>
                  <input type="checkbox" aria-label={`${op}: everyone`} checked={rules[op].everyone} onChange={(e) => set(op, { everyone: e.currentTarget.checked })} />
                </td>
                <td>
                  <input type="checkbox" aria-label={`${op}: signed-in users`} checked={rules[op].signedIn} onChange={(e) => set(op, { signedIn: e.currentTarget.checked })} />
                </td>
                <td>
                  <input aria-label={`${op}: users and roles`} placeholder="role:Admins, userId" value={rules[op].principals} onInput={(e) => set(op, { principals: e.currentTarget.value })} />
                </td>
                <td>
                  <input aria-label={`${op}: pointer fields`} placeholder="owner" value={rules[op].pointerFields} onInput={(e) => set(op, { pointerFields: e.currentTarget.value })} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div class="row">
        <label>
          readUserFields (get, find, count)
          <input name="readUserFields" value={readUserFields} placeholder="owner" onInput={(e) => setReadUserFields(e.currentTarget.value)} />
        </label>
        <label>
          writeUserFields (update, delete, addField)
          <input name="writeUserFields" value={writeUserFields} placeholder="owner" onInput={(e) => setWriteUserFields(e.currentTarget.value)} />
        </label>
      </div>
      <label>
        Protected fields (one line each: who: field, field)
        <textarea name="protectedFields" class="code" rows={3} value={protectedFields} placeholder="*: email, phone" onInput={(e) => setProtectedFields(e.currentTarget.value)} spellcheck={false} />
      </label>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="submit">Save permissions</button>
        <button type="button" onClick={() => void props.onSave(null)}>
          Open to everyone
        </button>
      </div>
    </form>
  );
}

import { isValidTableName } from '../core/names.js';
import type { StoredRecord } from '../core/values.js';
import { encodeRecord, type Json, type JsonObject } from '../core/wire-values.js';
import type { StorageAdapter } from '../storage/port.js';
import type { IncludePath } from '../query/parse/include.js';
import type { FindPlan, WhereNode } from '../query/plan.js';
import type { TableAccess } from '../access/table-access.js';
import type { ReadViews } from './read-restriction.js';


/** What include expansion reads: storage, the namespace, the output time zone, the caller's access views. */
export interface IncludeDeps {
  readonly storage: StorageAdapter;
  readonly namespace: string;
  readonly timeZone: string;
  /**
   * The caller's view of each target table: a target is expanded exactly when the caller could GET
   * it (the table's `get`, its ACL and pointer permissions), and shows what that GET would show.
   */
  readonly views: ReadViews;
}

const FETCH_CHUNK = 500;
const SYSTEM = new Set(['objectId', 'createdAt', 'updatedAt', '__type', 'className']);

interface Branch {
  fields: Set<string> | null;
  children: IncludePath[];
}

function isPointer(v: Json | undefined): v is { __type: 'Pointer'; className: string; objectId: string } {
  return (
    typeof v === 'object' && v !== null && !Array.isArray(v) && v.__type === 'Pointer' &&
    typeof v.className === 'string' && typeof v.objectId === 'string'
  );
}

/** Groups paths by their first step, merging field subsets (no subset wins). */
function branches(paths: readonly IncludePath[]): Map<string, Branch> {
  const out = new Map<string, Branch>();
  for (const path of paths) {
    const [first, ...rest] = path;
    if (!first) continue;
    let b = out.get(first.column);
    if (!b) out.set(first.column, (b = { fields: first.fields ? new Set(first.fields) : null, children: [] }));
    else if (!first.fields) b.fields = null;
    else if (b.fields) for (const f of first.fields) b.fields.add(f);
    if (rest.length > 0) b.children.push(rest);
  }
  return out;
}

async function fetchTargets(className: string, ids: readonly string[], view: TableAccess, deps: IncludeDeps): Promise<StoredRecord[]> {
  if (!view.allows('get')) return [];
  const table = { namespace: deps.namespace, className };
  const readFilter = view.readFilter('get');
  if ((await deps.storage.getSchema(table)) === null) return [];
  const out: StoredRecord[] = [];
  for (let i = 0; i < ids.length; i += FETCH_CHUNK) {
    const chunk = ids.slice(i, i + FETCH_CHUNK);
    const byId: WhereNode = { kind: 'in', field: { column: 'objectId', path: [] }, negate: false, values: chunk };
    const plan: FindPlan = {
      where: readFilter ? { kind: 'and', nodes: [byId, readFilter] } : byId,
      order: [],
      skip: 0,
      limit: chunk.length,
      projection: { kind: 'all' },
    };
    out.push(...(await deps.storage.find(table, plan)));
  }
  return out;
}

/**
 * Expands Pointer columns of already encoded records in place: each `include` path replaces the
 * Pointer (or the Pointers of an array) with the target record as
 * `{"__type":"Object","className":...,"objectId":...,"createdAt":...,...fields}`; dotted paths
 * (`post.author`) expand inside the expanded objects; `col[a|b]` keeps only those fields. Targets
 * are fetched with one `in` query per class and level; missing targets stay Pointers.
 *
 * @example await expandIncludes(results, parseInclude('post.author'), deps)
 */
export async function expandIncludes(objects: JsonObject[], paths: readonly IncludePath[], deps: IncludeDeps): Promise<void> {
  for (const [column, branch] of branches(paths)) {
    const wanted = new Map<string, Set<string>>();
    for (const obj of objects) {
      const v = obj[column];
      for (const p of Array.isArray(v) ? v : [v]) {
        if (!isPointer(p)) continue;
        let ids = wanted.get(p.className);
        if (!ids) wanted.set(p.className, (ids = new Set()));
        ids.add(p.objectId);
      }
    }
    const expanded = new Map<string, JsonObject>();
    for (const [targetClass, ids] of wanted) {
      const level: JsonObject[] = [];
      if (!isValidTableName(targetClass)) continue;
      const view = await deps.views.view(targetClass);
      for (const record of await fetchTargets(targetClass, [...ids], view, deps)) {
        const shown = view.project(record);
        const object: JsonObject = { __type: 'Object', className: targetClass, ...encodeRecord(shown, deps.timeZone) };
        expanded.set(`${targetClass}\u0000${record.objectId}`, object);
        level.push(object);
      }
      if (branch.children.length > 0) await expandIncludes(level, branch.children, deps);
      if (branch.fields) {
        const keep = new Set([...branch.fields, ...branch.children.map((c) => c[0]!.column)]);
        for (const object of level) for (const k of Object.keys(object)) if (!SYSTEM.has(k) && !keep.has(k)) delete object[k];
      }
    }
    const swap = (p: Json | undefined): Json | undefined =>
      isPointer(p) ? (expanded.get(`${p.className}\u0000${p.objectId}`) ?? p) : p;
    for (const obj of objects) {
      const v = obj[column];
      if (Array.isArray(v)) obj[column] = v.map((p) => swap(p) as Json);
      else if (v !== undefined) obj[column] = swap(v) as Json;
    }
  }
}

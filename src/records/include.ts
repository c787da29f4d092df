import { svcError } from '../core/errors.js';
import { jsonLength } from '../core/json-size.js';
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
  /**
   * Most bytes include may add to one response (`settings.query.maxIncludeBytes`): the JSON of each
   * included record (`jsonLength`: a byte per character, escapes aside), counted once per place it
   * appears in the reply (the JSON repeats a record every time a Pointer names it). Counted while
   * targets arrive; past it the read answers 11092.
   */
  readonly maxBytes: number;
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

/** The bytes include has added to one response so far, against its bound. */
class IncludeBudget {
  #used = 0;
  constructor(private readonly maxBytes: number) {}

  /** Counts an included object of `bytes` placed `places` times; throws 11092 past the bound. */
  add(bytes: number, places: number): void {
    this.#used += bytes * places;
    if (this.#used > this.maxBytes) throw svcError('includeTooLarge', this.maxBytes);
  }
}

/** The readable targets among `ids`, a chunk of at most FETCH_CHUNK records at a time. */
async function* fetchTargets(className: string, ids: readonly string[], view: TableAccess, deps: IncludeDeps): AsyncGenerator<StoredRecord[]> {
  if (!view.allows('get')) return;
  const table = { namespace: deps.namespace, className };
  const readFilter = view.readFilter('get');
  if ((await deps.storage.getSchema(table)) === null) return;
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
    yield await deps.storage.find(table, plan);
  }
}

/**
 * Expands Pointer columns of already encoded records in place: each `include` path replaces the
 * Pointer (or the Pointers of an array) with the target record as
 * `{"__type":"Object","className":...,"objectId":...,"createdAt":...,...fields}`; dotted paths
 * (`post.author`) expand inside the expanded objects; `col[a|b]` keeps only those fields. Targets
 * are fetched with one `in` query per class and level; missing targets stay Pointers.
 *
 * Bounded: what the expansion adds to the reply (each target's JSON once per place it appears,
 * nested levels multiplied by their parents' places) is counted as targets arrive, and past
 * `deps.maxBytes` the call throws 11092 before the reply is built (the objects are then half
 * expanded: callers drop them).
 *
 * @example await expandIncludes(results, parseInclude('post.author'), deps)
 */
export async function expandIncludes(objects: JsonObject[], paths: readonly IncludePath[], deps: IncludeDeps): Promise<void> {
  await expandLevel(objects, null, paths, deps, new IncludeBudget(deps.maxBytes));
}

/**
 * One level of `expandIncludes`. `places[i]`: how many times `objects[i]` appears in the reply
 * (null: once each, the listed records themselves).
 */
async function expandLevel(objects: readonly JsonObject[], places: readonly number[] | null, paths: readonly IncludePath[], deps: IncludeDeps, budget: IncludeBudget): Promise<void> {
  for (const [column, branch] of branches(paths)) {
    // Per target class: each wanted id and the number of places its object will fill.
    const wanted = new Map<string, Map<string, number>>();
    for (let i = 0; i < objects.length; i++) {
      const v = objects[i]![column];
      const weight = places ? places[i]! : 1;
      for (const p of Array.isArray(v) ? v : [v]) {
        if (!isPointer(p)) continue;
        let ids = wanted.get(p.className);
        if (!ids) wanted.set(p.className, (ids = new Map()));
        ids.set(p.objectId, (ids.get(p.objectId) ?? 0) + weight);
      }
    }
    // Fields kept by `col[a|b]`; the next level's Pointer columns stay so they can expand.
    const keep = branch.fields ? new Set([...branch.fields, ...branch.children.map((c) => c[0]!.column)]) : null;
    const expanded = new Map<string, JsonObject>();
    for (const [targetClass, ids] of wanted) {
      if (!isValidTableName(targetClass)) continue;
      const level: JsonObject[] = [];
      const levelPlaces: number[] = [];
      const view = await deps.views.view(targetClass);
      for await (const chunk of fetchTargets(targetClass, [...ids.keys()], view, deps)) {
        for (const record of chunk) {
          const shown = view.project(record);
          const object: JsonObject = { __type: 'Object', className: targetClass, ...encodeRecord(shown, deps.timeZone) };
          if (keep) for (const k of Object.keys(object)) if (!SYSTEM.has(k) && !keep.has(k)) delete object[k];
          const count = ids.get(record.objectId) ?? 1;
          budget.add(jsonLength(object), count);
          expanded.set(`${targetClass}\u0000${record.objectId}`, object);
          level.push(object);
          levelPlaces.push(count);
        }
      }
      if (branch.children.length > 0) await expandLevel(level, levelPlaces, branch.children, deps, budget);
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

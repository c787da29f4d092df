import type { Caller } from '../../app/caller.js';
import { isSvcError, svcError } from '../../core/errors.js';
import type { Logger } from '../../core/logger.js';
import { FORBIDDEN_KEYS, isValidFieldName } from '../../core/names.js';
import { type StoredRecord, type Value, isDate, isFile, isGeoPoint, isPointer } from '../../core/values.js';
import type { WriteEvent } from '../../events/write-event.js';
import type {
  AfterDeleteHook,
  AfterSaveContext,
  AfterSaveHook,
  BeforeDeleteHook,
  BeforeSaveContext,
  BeforeSaveHook,
  DeleteContext,
  WriteHookRegistry,
  WriteHooksConfig,
} from '../../events/write-hook-types.js';
import { copyOf, merged } from '../../core/copy.js';

type Moment = 'beforeSave' | 'afterSave' | 'beforeDelete' | 'afterDelete';
interface HookOf {
  beforeSave: BeforeSaveHook;
  afterSave: AfterSaveHook;
  beforeDelete: BeforeDeleteHook;
  afterDelete: AfterDeleteHook;
}

const withCaller = (caller: Caller | undefined): { caller?: Caller } => (caller ? { caller } : {});

/** Columns the service owns; a beforeSave hook changing them is a host bug (11111). */
const RESERVED = ['objectId', 'createdAt', 'updatedAt'] as const;

/**
 * The host's write hooks of one service, run by the observed storage (the one write pipeline):
 * before* inside the write (and its transaction), after* once it committed (never on rollback).
 */
export class WriteHooks implements WriteHookRegistry {
  private readonly byMoment: { [M in Moment]: Map<string, Set<HookOf[M]>> } = {
    beforeSave: new Map(),
    afterSave: new Map(),
    beforeDelete: new Map(),
    afterDelete: new Map(),
  };
  private afterCount = 0;
  private total = 0;
  private readonly afterListeners: Array<() => void> = [];

  constructor(private readonly logger: Logger) {}

  /** Registers every hook of a start-up configuration. */
  addAll(config: WriteHooksConfig): void {
    for (const [className, hooks] of Object.entries(config)) {
      for (const moment of ['beforeSave', 'afterSave', 'beforeDelete', 'afterDelete'] as const) {
        const given = hooks[moment];
        if (given === undefined) continue;
        const list = (Array.isArray(given) ? given : [given]) as Array<HookOf[typeof moment]>;
        for (const hook of list) this.add(moment, className, hook);
      }
    }
  }

  beforeSave = (className: string, hook: BeforeSaveHook) => this.add('beforeSave', className, hook);
  afterSave = (className: string, hook: AfterSaveHook) => this.add('afterSave', className, hook);
  beforeDelete = (className: string, hook: BeforeDeleteHook) => this.add('beforeDelete', className, hook);
  afterDelete = (className: string, hook: AfterDeleteHook) => this.add('afterDelete', className, hook);

  /** Whether a before* hook of this moment is registered for the class (writes skip the work otherwise). */
  has(moment: 'beforeSave' | 'beforeDelete', className: string): boolean {
    return (this.byMoment[moment].get(className)?.size ?? 0) > 0;
  }

  /** Whether any hook is registered (writes are bound to their caller only then: see `actingAs`). */
  get any(): boolean {
    return this.total > 0;
  }

  /** Whether any after* hook exists (they need the write events, as observers do). */
  get hasAfter(): boolean {
    return this.afterCount > 0;
  }

  /** Called once when the first after* hook is registered. */
  onFirstAfterHook(listener: () => void): void {
    this.afterListeners.push(listener);
  }

  /** Runs the beforeSave hooks of a create; returns the fields to insert (a copy when a hook changed them). */
  async runBeforeCreate(app: string, className: string, record: StoredRecord, caller: Caller | undefined): Promise<StoredRecord> {
    const object: Record<string, Value> = copyOf(record);
    const ctx: BeforeSaveContext = { op: 'create', app, className, objectId: record.objectId, ...withCaller(caller), object };
    await this.runBefore('beforeSave', className, ctx);
    for (const key of RESERVED) {
      if (object[key] !== record[key]) throw svcError('hookChangeInvalid', className, key);
    }
    checkChanged(className, record, object);
    return object as StoredRecord;
  }

  /** Runs the beforeSave hooks of an update; returns the set values after the hooks. */
  async runBeforeUpdate(app: string, className: string, original: StoredRecord, changes: Record<string, Value>, caller: Caller | undefined): Promise<Record<string, Value>> {
    const mutable: Record<string, Value> = copyOf(changes);
    const ctx: BeforeSaveContext = { op: 'update', app, className, objectId: original.objectId, ...withCaller(caller), original, changes: mutable };
    await this.runBefore('beforeSave', className, ctx);
    for (const key of RESERVED) {
      if (Object.hasOwn(mutable, key) && mutable[key] !== changes[key]) throw svcError('hookChangeInvalid', className, key);
    }
    checkChanged(className, changes, mutable);
    return mutable;
  }

  /** Runs the beforeDelete hooks; throws (refusing the delete) when one does. */
  runBeforeDelete(app: string, className: string, original: StoredRecord, caller: Caller | undefined): Promise<void> {
    const ctx: DeleteContext = { op: 'delete', app, className, objectId: original.objectId, ...withCaller(caller), original };
    return this.runBefore('beforeDelete', className, ctx);
  }

  /** The after* hooks of one committed change (called like a write observer). Errors are logged only. */
  afterWrite(event: WriteEvent): void {
    const base = { app: event.app, className: event.className, objectId: event.objectId, ...withCaller(event.caller) };
    if (event.op === 'delete') {
      if (event.before) this.runAfter('afterDelete', event, merged(base, { op: 'delete' as const, original: event.before }));
    } else if (event.after) {
      this.runAfter('afterSave', event, merged(base, { op: event.op, object: event.after, original: event.before }));
    }
  }

  private add<M extends Moment>(moment: M, className: string, hook: HookOf[M]): () => void {
    if (typeof className !== 'string' || className === '') throw new Error(`[svcbase] [hooks] ${moment} needs a class name`);
    if (typeof hook !== 'function') throw new Error(`[svcbase] [hooks] ${moment} of ${className} is not a function`);
    const map = this.byMoment[moment] as Map<string, Set<HookOf[M]>>;
    let set = map.get(className);
    if (!set) map.set(className, (set = new Set()));
    // A wrapper per registration: the same function registered twice runs twice and unregisters once.
    const entry = ((ctx: never) => (hook as (c: never) => unknown)(ctx)) as HookOf[M];
    set.add(entry);
    this.total++;
    const isAfter = moment === 'afterSave' || moment === 'afterDelete';
    if (isAfter && this.afterCount++ === 0) for (const listener of this.afterListeners.splice(0)) listener();
    let removed = false;
    return () => {
      if (removed) return;
      removed = true;
      set.delete(entry);
      this.total--;
      if (isAfter) this.afterCount--;
    };
  }

  private async runBefore<M extends 'beforeSave' | 'beforeDelete'>(moment: M, className: string, ctx: Parameters<HookOf[M]>[0]): Promise<void> {
    const hooks = this.byMoment[moment].get(className);
    if (!hooks) return;
    for (const hook of [...hooks]) {
      try {
        await (hook as (c: typeof ctx) => unknown)(ctx);
      } catch (error) {
        // A coded error from the host passes through as it is; anything else refuses with 11110 and the host's message.
        if (isSvcError(error)) throw error;
        const message = error instanceof Error ? error.message : String(error);
        throw svcError('hookRefused', message === '' ? `${moment} of ${className} refused the write` : message);
      }
    }
  }

  private runAfter<M extends 'afterSave' | 'afterDelete'>(moment: M, event: WriteEvent, ctx: Parameters<HookOf[M]>[0]): void {
    const hooks = this.byMoment[moment].get(event.className);
    if (!hooks) return;
    const failed = (error: unknown) =>
      this.logger.error(`${moment} hook failed`, { className: event.className, objectId: event.objectId, error: String(error) });
    for (const hook of [...hooks]) {
      try {
        const result = (hook as (c: typeof ctx) => unknown)(ctx);
        if (result instanceof Promise) result.catch(failed);
      } catch (error) {
        failed(error);
      }
    }
  }
}

/**
 * Checks what a beforeSave hook changed: keys it set to undefined are dropped; new keys must be valid
 * field names and every changed value a storable value (11117), so adapters never see host mistakes.
 */
function checkChanged(className: string, before: Readonly<Record<string, Value>>, after: Record<string, Value>): void {
  for (const key of Object.keys(after)) {
    const value = after[key];
    if (Object.hasOwn(before, key) && value === before[key]) continue;
    if (value === undefined) {
      delete after[key];
      continue;
    }
    if (!Object.hasOwn(before, key) && (FORBIDDEN_KEYS.has(key) || !isValidFieldName(key))) throw svcError('hookValueInvalid', className, key);
    if (!isStorable(value, 0)) throw svcError('hookValueInvalid', className, key);
  }
}

function isStorable(value: unknown, depth: number): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isStorable(item, depth + 1));
  if (typeof value !== 'object') return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  if (proto !== Object.prototype && proto !== null) return false;
  const typed = value as Value;
  if (isDate(typed) || isPointer(typed) || isGeoPoint(typed) || isFile(typed)) return true;
  return Object.entries(value).every(([key, item]) => !FORBIDDEN_KEYS.has(key) && isStorable(item, depth + 1));
}

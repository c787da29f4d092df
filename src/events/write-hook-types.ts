import type { Caller } from '../app/caller.js';
import type { StoredRecord, Value } from '../core/values.js';

/**
 * What every hook learns about the write. `app` is the application id; `caller` is who made the
 * write (a batch item's own caller inside a batch), absent for writes no caller made (start-up work,
 * a mailed link followed, internal bookkeeping).
 */
interface HookBase {
  readonly app: string;
  readonly className: string;
  readonly objectId: string;
  readonly caller?: Caller;
}

/**
 * A `beforeSave` call. On create, `object` holds the record's fields about to be inserted; on update,
 * `changes` holds the values being set (column → value; other operations such as increments are not
 * listed). Both are mutable: changing, adding or deleting a key changes what is written (objectId,
 * createdAt and updatedAt excepted). Throwing refuses the write: nothing is written.
 */
export type BeforeSaveContext =
  | (HookBase & { readonly op: 'create'; readonly object: Record<string, Value> })
  | (HookBase & { readonly op: 'update'; readonly original: StoredRecord; readonly changes: Record<string, Value> });

/** An `afterSave` call: the record as committed (`original` is the before-image of an update). */
export interface AfterSaveContext extends HookBase {
  readonly op: 'create' | 'update';
  readonly object: StoredRecord;
  readonly original?: StoredRecord;
}

/** A `beforeDelete` or `afterDelete` call with the record being (or just) deleted. */
export interface DeleteContext extends HookBase {
  readonly op: 'delete';
  readonly original: StoredRecord;
}

export type BeforeSaveHook = (ctx: BeforeSaveContext) => void | Promise<void>;
export type AfterSaveHook = (ctx: AfterSaveContext) => void | Promise<void>;
export type BeforeDeleteHook = (ctx: DeleteContext) => void | Promise<void>;
export type AfterDeleteHook = (ctx: DeleteContext) => void | Promise<void>;

/** Hooks given at start-up: per class name, one function or a list of them for each moment. */
export interface WriteHooksConfig {
  readonly [className: string]: {
    readonly beforeSave?: BeforeSaveHook | readonly BeforeSaveHook[];
    readonly afterSave?: AfterSaveHook | readonly AfterSaveHook[];
    readonly beforeDelete?: BeforeDeleteHook | readonly BeforeDeleteHook[];
    readonly afterDelete?: AfterDeleteHook | readonly AfterDeleteHook[];
  };
}

/** Registration of host hooks at run time (`service.hooks`). Each returns its unregister function. */
export interface WriteHookRegistry {
  beforeSave(className: string, hook: BeforeSaveHook): () => void;
  afterSave(className: string, hook: AfterSaveHook): () => void;
  beforeDelete(className: string, hook: BeforeDeleteHook): () => void;
  afterDelete(className: string, hook: AfterDeleteHook): () => void;
}

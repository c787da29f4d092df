import { isValidFieldName } from '../../core/names.js';
import { queryError } from './context.js';

/**
 * One `include` path: `post.author` is two steps; each step names a Pointer column and may keep
 * only some fields of the expanded object (`post[title|likes].author[username]`).
 */
export interface IncludeStep {
  readonly column: string;
  /** Fields kept in the expanded object (objectId, createdAt, updatedAt always stay); all when absent. */
  readonly fields?: readonly string[];
}
export type IncludePath = readonly IncludeStep[];

const MAX_PATHS = 10;
const MAX_DEPTH = 4;
const STEP = /^([A-Za-z][A-Za-z0-9_]*)(?:\[([A-Za-z0-9_|]*)\])?$/;

/** Parses `include=post.author,owner[username|email]`; throws 102 on an invalid name. */
export function parseInclude(text: string | null): IncludePath[] {
  if (text === null || text.trim() === '') return [];
  const paths = text.split(',').map((s) => s.trim()).filter((s) => s.length > 0);
  if (paths.length > MAX_PATHS) throw queryError(`include has more than ${MAX_PATHS} paths.`);
  return paths.map((path) => {
    const steps = splitSteps(path);
    if (steps.length > MAX_DEPTH) throw queryError(`include '${path}' is nested deeper than ${MAX_DEPTH} levels.`);
    return Object.freeze(
      steps.map((step) => {
        const m = STEP.exec(step);
        if (!m || !isValidFieldName(m[1]!)) throw queryError(`invalid key '${path}' in include.`);
        if (m[2] === undefined) return Object.freeze({ column: m[1]! });
        const fields = m[2].split('|').filter((f) => f.length > 0);
        for (const f of fields) if (!isValidFieldName(f)) throw queryError(`invalid key '${path}' in include.`);
        return Object.freeze({ column: m[1]!, fields: Object.freeze(fields) });
      }),
    );
  });
}

/** Splits on dots outside brackets. */
function splitSteps(path: string): string[] {
  const steps: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path[i];
    if (c === '[') depth++;
    else if (c === ']') depth--;
    else if (c === '.' && depth === 0) {
      steps.push(path.slice(start, i));
      start = i + 1;
    }
  }
  steps.push(path.slice(start));
  return steps;
}

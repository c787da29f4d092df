import { svcError } from '../core/errors.js';
import { FEATURE_ID } from './contract.js';

/** What ordering needs of a feature definition. */
export interface Orderable {
  readonly id: string;
  readonly requires?: readonly string[];
  readonly after?: readonly string[];
}

/**
 * Orders features so each starts after those it `requires` (and after the present ones it lists in
 * `after`): a topological order where ties keep declaration order. Throws 11114 for a duplicate id,
 * 11112 for a missing requirement and 11113 for a cycle (naming it).
 */
export function orderFeatures<F extends Orderable>(features: readonly F[]): F[] {
  const byId = new Map<string, F>();
  for (const feature of features) {
    if (typeof feature.id !== 'string' || !FEATURE_ID.test(feature.id)) throw new Error(`[svcbase] [features] invalid feature id '${String(feature.id)}'`);
    if (byId.has(feature.id)) throw svcError('featureDuplicate', feature.id);
    byId.set(feature.id, feature);
  }
  const needs = new Map<string, string[]>();
  for (const feature of features) {
    for (const required of feature.requires ?? []) {
      if (!byId.has(required)) throw svcError('featureRequirementMissing', feature.id, required);
    }
    const present = (feature.after ?? []).filter((id) => byId.has(id));
    needs.set(feature.id, [...new Set([...(feature.requires ?? []), ...present])]);
  }
  const ordered: F[] = [];
  const placed = new Set<string>();
  // Repeatedly take the first (in declaration order) feature whose needs are all placed.
  while (ordered.length < features.length) {
    const next = features.find((f) => !placed.has(f.id) && (needs.get(f.id) ?? []).every((id) => placed.has(id)));
    if (!next) throw svcError('featureCycle', describeCycle(features.filter((f) => !placed.has(f.id)), needs));
    ordered.push(next);
    placed.add(next.id);
  }
  return ordered;
}

/** One cycle among the unplaced features, as `a -> b -> a`. */
function describeCycle(rest: readonly Orderable[], needs: ReadonlyMap<string, readonly string[]>): string {
  const unplaced = new Set(rest.map((f) => f.id));
  const path: string[] = [];
  let current = rest[0]?.id;
  while (current !== undefined && !path.includes(current)) {
    path.push(current);
    current = (needs.get(current) ?? []).find((id) => unplaced.has(id));
  }
  if (current === undefined) return path.join(' -> ');
  return [...path.slice(path.indexOf(current)), current].join(' -> ');
}

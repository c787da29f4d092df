import type { WhereNode } from '../plan.js';
import { capBoundingBox } from '../geo.js';
import { and, type Cond } from './cond.js';
import { param, sql } from './fragment.js';
import type { CompileState, Slot } from './scope.js';

/**
 * `$nearSphere`: an index-friendly bounding box around the cap, then the exact great-circle test
 * with the same distance function the evaluator uses.
 */
export function compileNearSql(node: Extract<WhereNode, { kind: 'near' }>, slot: Slot, state: CompileState): Cond {
  if (slot.kind !== 'geo') return false;
  const { latitude, longitude } = node.point;
  const box = capBoundingBox(latitude, longitude, node.maxRadians);
  const parts: Cond[] = [sql`${slot.lat} IS NOT NULL`];
  if (box) {
    parts.push(sql`${slot.lat} BETWEEN ${param(box.minLat)} AND ${param(box.maxLat)}`);
    if (box.minLng !== undefined && box.maxLng !== undefined) {
      parts.push(sql`${slot.lng} BETWEEN ${param(box.minLng)} AND ${param(box.maxLng)}`);
    }
  }
  parts.push(sql`${state.dialect.geoDistance(slot.lat, slot.lng, node.point)} <= ${param(node.maxRadians)}`);
  return and(parts);
}

/** `$within: {$box}`: inside the normalised box, edges included. */
export function compileWithinSql(node: Extract<WhereNode, { kind: 'within_box' }>, slot: Slot): Cond {
  if (slot.kind !== 'geo') return false;
  const { southWest: sw, northEast: ne } = node;
  return and([
    sql`${slot.lat} BETWEEN ${param(sw.latitude)} AND ${param(ne.latitude)}`,
    sql`${slot.lng} BETWEEN ${param(sw.longitude)} AND ${param(ne.longitude)}`,
  ]);
}

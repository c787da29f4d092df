import type { GeoPointValue, Value } from '../../../core/values.js';
import { geoDistanceRadians } from '../../geo.js';
import type { WhereNode } from '../../plan.js';
import type { EvalContext, Predicate } from '../context.js';
import { compileGetter } from '../field.js';

function asGeoPoint(v: Value | undefined): GeoPointValue | null {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && (v as { __type?: unknown }).__type === 'GeoPoint'
    ? (v as GeoPointValue)
    : null;
}

/** `$nearSphere`: a GeoPoint within `maxRadians` (great-circle, haversine) of the point. */
export function compileNear(node: Extract<WhereNode, { kind: 'near' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const { latitude, longitude } = node.point;
  const max = node.maxRadians;
  return (r) => {
    const g = asGeoPoint(get(r));
    return g !== null && geoDistanceRadians(g.latitude, g.longitude, latitude, longitude) <= max;
  };
}

/** `$within: {$box}`: a GeoPoint inside the (normalised) box, edges included. */
export function compileWithinBox(node: Extract<WhereNode, { kind: 'within_box' }>, _ctx: EvalContext): Predicate {
  const get = compileGetter(node.field);
  const { southWest: sw, northEast: ne } = node;
  return (r) => {
    const g = asGeoPoint(get(r));
    return (
      g !== null &&
      g.latitude >= sw.latitude &&
      g.latitude <= ne.latitude &&
      g.longitude >= sw.longitude &&
      g.longitude <= ne.longitude
    );
  };
}

/** Distance in radians from a record's GeoPoint to `point`, or null without one (sorting). */
export function distanceGetter(field: Parameters<typeof compileGetter>[0], point: GeoPointValue): (r: Parameters<Predicate>[0]) => number | null {
  const get = compileGetter(field);
  return (r) => {
    const g = asGeoPoint(get(r));
    return g === null ? null : geoDistanceRadians(g.latitude, g.longitude, point.latitude, point.longitude);
  };
}

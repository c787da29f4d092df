import type { GeoPointValue } from '../../core/values.js';
import { decodeGeoPoint, type Json } from '../../core/wire-values.js';
import { DEFAULT_NEAR_RADIANS, EARTH_RADIUS_KM, EARTH_RADIUS_MILES } from '../geo.js';
import type { WhereNode } from '../plan.js';
import { queryError, type WhereScope } from './context.js';
import type { FieldInfo } from './field.js';
import { isJsonObject, node } from './nodes.js';

function geoPoint(json: Json, key: string): GeoPointValue {
  if (!isJsonObject(json) || json.__type !== 'GeoPoint') throw queryError(`${key}: invalid geopoint object.`);
  return decodeGeoPoint(json, key);
}

function assertGeoColumn(info: FieldInfo, op: string): void {
  if (info.field.path.length > 0 || (info.type !== null && info.type !== 'GeoPoint')) {
    throw queryError(`key '${info.key}': ${op} needs a GeoPoint column.`);
  }
}

/**
 * `{"$nearSphere": GeoPoint, "$maxDistanceInKilometers": 10}`: within a great-circle radius
 * (default 100 km). Miles use a 3958.8 mi Earth radius, kilometres 6371 km.
 */
export function parseNear(info: FieldInfo, operand: Json, siblings: { [key: string]: Json }, scope: WhereScope): WhereNode {
  assertGeoColumn(info, '$nearSphere');
  const point = geoPoint(operand, info.key);
  const radiusKeys = ['$maxDistanceInMiles', '$maxDistanceInKilometers', '$maxDistanceInRadians', '$maxDistance'].filter((k) =>
    Object.hasOwn(siblings, k),
  );
  if (radiusKeys.length > 1) throw queryError(`key '${info.key}': give only one of ${radiusKeys.join(', ')}.`);
  let maxRadians = DEFAULT_NEAR_RADIANS;
  const radiusKey = radiusKeys[0];
  if (radiusKey !== undefined) {
    const distance = siblings[radiusKey];
    if (typeof distance !== 'number' || !Number.isFinite(distance) || distance < 0) {
      throw queryError(`key '${info.key}': ${radiusKey} needs a non-negative number.`);
    }
    maxRadians =
      radiusKey === '$maxDistanceInMiles'
        ? distance / EARTH_RADIUS_MILES
        : radiusKey === '$maxDistanceInKilometers'
          ? distance / EARTH_RADIUS_KM
          : distance;
  }
  return node(scope, { kind: 'near', field: info.field, point, maxRadians });
}

/**
 * `{"$within": {"$box": [southWest, northEast]}}`. The corners are normalised (the documentation's
 * own example swaps the latitudes): the box spans the smaller to the larger latitude and longitude.
 */
export function parseWithin(info: FieldInfo, operand: Json, scope: WhereScope): WhereNode {
  assertGeoColumn(info, '$within');
  if (!isJsonObject(operand) || Object.keys(operand).length !== 1 || !Array.isArray(operand.$box) || operand.$box.length !== 2) {
    throw queryError(`key '${info.key}': $within needs {"$box": [southWest, northEast]}.`);
  }
  const a = geoPoint(operand.$box[0]!, info.key);
  const b = geoPoint(operand.$box[1]!, info.key);
  const southWest: GeoPointValue = Object.freeze({
    __type: 'GeoPoint',
    latitude: Math.min(a.latitude, b.latitude),
    longitude: Math.min(a.longitude, b.longitude),
  });
  const northEast: GeoPointValue = Object.freeze({
    __type: 'GeoPoint',
    latitude: Math.max(a.latitude, b.latitude),
    longitude: Math.max(a.longitude, b.longitude),
  });
  return node(scope, { kind: 'within_box', field: info.field, southWest, northEast });
}

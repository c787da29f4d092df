/**
 * Great-circle geometry of `$nearSphere` and `$within`. The memory evaluator and the SQLite
 * function `svc_geo_distance` both call `geoDistanceRadians`, so a point is inside a radius in one
 * adapter exactly when it is in the other.
 */

/** Mean Earth radius in kilometres, used to turn `$maxDistanceInKilometers` into radians. */
export const EARTH_RADIUS_KM = 6371;
/** Mean Earth radius in miles, used to turn `$maxDistanceInMiles` into radians. */
export const EARTH_RADIUS_MILES = 3958.8;
/** Radius of `$nearSphere` without an explicit maximum: 100 km, in radians. */
export const DEFAULT_NEAR_RADIANS = 100 / EARTH_RADIUS_KM;

const RAD = Math.PI / 180;

/**
 * Central angle in radians between two points given in degrees (haversine formula).
 *
 * @example geoDistanceRadians(0, 0, 0, 1) * EARTH_RADIUS_KM // ≈ 111.19
 */
export function geoDistanceRadians(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const dLat = (lat2 - lat1) * RAD;
  const dLng = (lng2 - lng1) * RAD;
  const s1 = Math.sin(dLat / 2);
  const s2 = Math.sin(dLng / 2);
  let h = s1 * s1 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * s2 * s2;
  if (h > 1) h = 1;
  if (h < 0) h = 0;
  return 2 * Math.asin(Math.sqrt(h));
}

/**
 * A conservative bounding box (degrees) around a spherical cap: every point within `radians` of
 * the centre lies inside it. Longitude bounds are absent when the cap touches a pole or crosses
 * the antimeridian. Used only as an index-friendly prefilter before the exact distance test.
 */
export interface GeoBox {
  readonly minLat: number;
  readonly maxLat: number;
  readonly minLng?: number;
  readonly maxLng?: number;
}

const MARGIN = 1e-9;

export function capBoundingBox(latitude: number, longitude: number, radians: number): GeoBox | null {
  if (radians >= Math.PI) return null;
  const dLat = radians / RAD;
  const minLat = latitude - dLat - MARGIN;
  const maxLat = latitude + dLat + MARGIN;
  if (minLat <= -90 || maxLat >= 90) return { minLat: Math.max(minLat, -90), maxLat: Math.min(maxLat, 90) };
  const ratio = Math.sin(radians) / Math.cos(latitude * RAD);
  if (ratio >= 1) return { minLat, maxLat };
  const dLng = Math.asin(ratio) / RAD;
  const minLng = longitude - dLng - MARGIN;
  const maxLng = longitude + dLng + MARGIN;
  if (minLng < -180 || maxLng > 180) return { minLat, maxLat };
  return { minLat, maxLat, minLng, maxLng };
}

import type { Random } from './random.js';
import { randomString } from './random.js';

const OBJECT_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** A new objectId: 10 characters from [0-9a-zA-Z] (PROTOCOL decision 5). */
export function newObjectId(random: Random): string {
  return randomString(random, 10);
}

/**
 * Whether a path parameter can be an objectId at all. Ids the service issued are 10 alphanumerics;
 * older data may hold 8 or 24 characters. Anything else cannot exist, so it is "not found" (101).
 */
export function isPlausibleObjectId(id: string): boolean {
  return OBJECT_ID.test(id);
}

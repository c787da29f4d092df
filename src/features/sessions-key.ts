import type { SessionResolver } from '../app/caller.js';
import { featureKey } from './contract.js';

/**
 * Session tokens → users, published by the users feature and read by every feature that resolves a
 * caller's token (records' batch items, realtime). A key of its own, beside the contract, so a
 * feature can look it up without depending on the users feature.
 */
export const SESSIONS = featureKey<SessionResolver>('sessions');

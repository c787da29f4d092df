/**
 * What the same-work REST servers (SQLite: rest-same-work.ts, PostgreSQL: postgres-same-work.ts)
 * share: the table and its columns, the REST API's date text, type checks, ids, and replies. Only
 * their statements and row decoding differ.
 */
import { hash, randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { CLASS_NAME } from './data.js';
import { REST_APP } from './rest-app.js';

export const TABLE = `"${REST_APP.namespace}__${CLASS_NAME}"`;
export const JSON_HEADERS = { 'access-control-allow-origin': '*', 'content-type': 'application/json; charset=utf-8' };
/** The Bench table's columns beyond the three every record has, in name order, with their types. */
export const COLUMNS: ReadonlyArray<readonly [string, 'Boolean' | 'Object' | 'Array' | 'String' | 'Number']> = [
  ['active', 'Boolean'],
  ['address', 'Object'],
  ['category', 'String'],
  ['level', 'Number'],
  ['name', 'String'],
  ['nickname', 'String'],
  ['score', 'Number'],
  ['tags', 'Array'],
];
const ID_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

export function sha256(text: string): Buffer {
  return hash('sha256', text, 'buffer');
}

/** A date as the REST API writes it: `YYYY-MM-DD HH:mm:ss`. */
export function dateText(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

export function typeMatches(type: string, value: unknown): boolean {
  switch (type) {
    case 'Boolean':
      return typeof value === 'boolean';
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'String':
      return typeof value === 'string';
    case 'Array':
      return Array.isArray(value);
    default:
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

export function newObjectId(): string {
  const bytes = randomBytes(10);
  let id = '';
  for (const byte of bytes) id += ID_ALPHABET[byte % ID_ALPHABET.length];
  return id;
}

export function send(res: ServerResponse, status: number, body: string, extra?: Record<string, string>): void {
  res.writeHead(status, extra ? { ...JSON_HEADERS, ...extra } : JSON_HEADERS);
  res.end(body);
}

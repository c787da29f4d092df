/** A request target split for the service: the path after the mount prefix and the raw query. */
export interface Target {
  /** Raw (percent-encoded) path after the prefix, `/` at least. */
  readonly path: string;
  /** Query string without the `?`. */
  readonly search: string;
}

/** `'api/'`, `'/api'` and `'/api/'` all mean `/api`; none, `''` and `'/'` mean no prefix. */
export function normalizePrefix(prefix: string | undefined): string {
  if (!prefix || prefix === '/') return '';
  return '/' + prefix.replace(/^\/+|\/+$/g, '');
}

/** Splits `/api/1/x?y=1` under prefix `/api` into `/1/x` and `y=1`; null when the path is outside the prefix. */
export function splitTarget(url: string, prefix: string): Target | null {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const search = queryAt === -1 ? '' : url.slice(queryAt + 1);
  if (!prefix) return { path: path || '/', search };
  if (path !== prefix && !path.startsWith(prefix + '/')) return null;
  return { path: path.slice(prefix.length) || '/', search };
}

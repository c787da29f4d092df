/**
 * CORS: browsers send custom credential headers, so every request is preflighted. The preflight is
 * answered without credentials; the allowed origins are a service option (`*` by default).
 */
export function corsHeaders(origin: string | undefined, allowed: '*' | readonly string[]): Record<string, string> {
  if (allowed === '*') return { 'access-control-allow-origin': '*' };
  if (origin && allowed.includes(origin)) return { 'access-control-allow-origin': origin, vary: 'Origin' };
  return { vary: 'Origin' };
}

export function preflightResponse(cors: Record<string, string>, credentialHeaders: readonly string[]) {
  return {
    status: 204,
    headers: {
      ...cors,
      'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      'access-control-allow-headers': ['content-type', ...credentialHeaders].join(', '),
      'access-control-max-age': '86400',
    },
    body: '',
  };
}

import type { RouteDef } from './types.js';

export interface RouteMatch {
  readonly route: RouteDef;
  readonly params: Record<string, string>;
}

export interface Router {
  /** Finds the route for a method and a raw (percent-encoded) path. */
  match(method: string, rawPath: string): RouteMatch | null;
  /** Whether some route has this path under any method (tells 404 from a wrong method). */
  readonly routes: readonly RouteDef[];
}

/** A route's path as two parallel arrays: the literal of each segment, or null where it takes a parameter. */
interface CompiledRoute {
  readonly route: RouteDef;
  readonly literals: readonly (string | null)[];
  readonly params: readonly (string | null)[];
  readonly literalCount: number;
}

/**
 * Splits a path into segments, routing `//` and a trailing `/` as if single (PROTOCOL decision 10:
 * `POST /1/classes/Game/` creates). Signature checks use the unnormalised path, not this.
 */
export function pathSegments(rawPath: string): string[] {
  const parts = rawPath.split('/');
  let kept = 0;
  for (let i = 0; i < parts.length; i++) if (parts[i]!.length > 0) parts[kept++] = parts[i]!;
  parts.length = kept;
  return parts;
}

function compile(route: RouteDef): CompiledRoute {
  const segments = pathSegments(route.path);
  const literals = segments.map((s) => (s.startsWith(':') ? null : s));
  const params = segments.map((s) => (s.startsWith(':') ? s.slice(1) : null));
  return { route, literals, params, literalCount: literals.filter((l) => l !== null).length };
}

/**
 * A small segment router. Routes are grouped by segment count and method, so a lookup compares a
 * handful of literals; parameters are decoded only for the route that matched. Literal segments win
 * over parameters regardless of declaration order.
 */
export function createRouter(routes: readonly RouteDef[]): Router {
  const compiled = routes.map(compile);
  // More literal segments first, so `/1/users/me` beats `/1/users/:objectId`; the sort is stable.
  const ordered = [...compiled].sort((a, b) => b.literalCount - a.literalCount);
  const lengths = new Set(compiled.map((c) => c.literals.length));
  const methods = new Set<string>(routes.map((r) => r.method).filter((m) => m !== '*'));
  // Per method and segment count: that method's routes and the `*` routes, in the order above.
  const byMethod = new Map<string, Map<number, readonly CompiledRoute[]>>();
  const anyMethod = new Map<number, readonly CompiledRoute[]>();
  for (const method of methods) byMethod.set(method, new Map());
  for (const length of lengths) {
    const sameLength = ordered.filter((c) => c.literals.length === length);
    for (const method of methods) byMethod.get(method)!.set(length, sameLength.filter((c) => c.route.method === '*' || c.route.method === method));
    anyMethod.set(length, sameLength.filter((c) => c.route.method === '*'));
  }

  return {
    routes,
    match(method, rawPath) {
      const parts = pathSegments(rawPath);
      const candidates = (byMethod.get(method) ?? anyMethod).get(parts.length);
      if (!candidates) return null;
      for (const candidate of candidates) {
        if (!literalsMatch(candidate.literals, parts)) continue;
        const params = decodeParams(candidate.params, parts);
        if (params) return { route: candidate.route, params };
      }
      return null;
    },
  };
}

function literalsMatch(literals: readonly (string | null)[], parts: readonly string[]): boolean {
  for (let i = 0; i < literals.length; i++) {
    const literal = literals[i];
    if (literal !== null && literal !== parts[i]) return false;
  }
  return true;
}

/** The route's parameters, percent-decoded; null when one does not decode (the route does not match). */
function decodeParams(names: readonly (string | null)[], parts: readonly string[]): Record<string, string> | null {
  const params = Object.create(null) as Record<string, string>;
  for (let i = 0; i < names.length; i++) {
    const name = names[i] ?? null;
    if (name === null) continue;
    const part = parts[i]!;
    try {
      params[name] = part.includes('%') ? decodeURIComponent(part) : part;
    } catch {
      return null;
    }
  }
  return params;
}

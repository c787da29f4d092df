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

type Segment = { readonly literal: string } | { readonly param: string };

interface CompiledRoute {
  readonly route: RouteDef;
  readonly segments: readonly Segment[];
}

/**
 * Splits a path into segments, routing `//` and a trailing `/` as if single (PROTOCOL decision 10:
 * `POST /1/classes/Game/` creates). Signature checks use the unnormalised path, not this.
 */
export function pathSegments(rawPath: string): string[] {
  return rawPath.split('/').filter((s) => s.length > 0);
}

function compile(route: RouteDef): CompiledRoute {
  const segments = pathSegments(route.path).map((s): Segment => (s.startsWith(':') ? { param: s.slice(1) } : { literal: s }));
  return { route, segments };
}

/**
 * A small segment router. Routes are grouped by segment count, so a lookup compares a handful of
 * literals. Literal segments win over parameters regardless of declaration order.
 */
export function createRouter(routes: readonly RouteDef[]): Router {
  const byLength = new Map<number, CompiledRoute[]>();
  for (const route of routes) {
    const compiled = compile(route);
    const list = byLength.get(compiled.segments.length) ?? [];
    list.push(compiled);
    byLength.set(compiled.segments.length, list);
  }
  // More literal segments first, so `/1/users/me` beats `/1/users/:objectId`.
  for (const list of byLength.values()) {
    list.sort((a, b) => literalCount(b) - literalCount(a));
  }

  return {
    routes,
    match(method, rawPath) {
      const parts = pathSegments(rawPath);
      const candidates = byLength.get(parts.length);
      if (!candidates) return null;
      for (const candidate of candidates) {
        if (candidate.route.method !== '*' && candidate.route.method !== method) continue;
        const params = matchSegments(candidate.segments, parts);
        if (params) return { route: candidate.route, params };
      }
      return null;
    },
  };
}

function literalCount(route: CompiledRoute): number {
  return route.segments.filter((s) => 'literal' in s).length;
}

function matchSegments(segments: readonly Segment[], parts: readonly string[]): Record<string, string> | null {
  let params: Record<string, string> | null = null;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const part = parts[i]!;
    if ('literal' in segment) {
      if (segment.literal !== part) return null;
      continue;
    }
    let decoded: string;
    try {
      decoded = decodeURIComponent(part);
    } catch {
      return null;
    }
    params ??= Object.create(null) as Record<string, string>;
    params[segment.param] = decoded;
  }
  return params ?? (Object.create(null) as Record<string, string>);
}

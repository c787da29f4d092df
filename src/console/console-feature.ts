import { configError } from '../core/errors.js';
import type { FeatureDefinition } from '../features/contract.js';
import type { RouteDef, RouteResult } from '../features/routes.js';
import { consoleAssets } from './console-assets.js';

export interface ConsoleOptions {
  /** Where the console is served under the service's mount (default `/console`). */
  readonly path?: string;
}

/** Tight headers: the page loads only its own script and style and talks only to its own origin. */
const PAGE_HEADERS = {
  'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data: blob:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-cache',
};

const PATH = /^\/[A-Za-z0-9_-]+(\/[A-Za-z0-9_-]+)*$/;

/**
 * The admin console (docs/console.md): a small browser app served at `<mount><path>`, off unless the
 * host enables it. It holds no credentials of its own: an operator signs in with an application id
 * and its master key, kept in the tab's sessionStorage and sent as a header on each REST call, so
 * there is no cookie for another site to ride (CSRF) and nothing in a URL.
 */
export function consoleFeature(options: ConsoleOptions, brand: string): FeatureDefinition {
  const path = options.path ?? '/console';
  if (!PATH.test(path)) throw configError('console', `console path '${path.slice(0, 64)}' must look like /console`);
  return {
    id: 'console',
    init: () => ({ routes: consoleRoutes(path, brand) }),
  };
}

function asset(kind: 'script' | 'styles'): RouteResult {
  const assets = consoleAssets();
  if (!assets) return { status: 404, raw: true, body: 'the console was not built', headers: { 'content-type': 'text/plain; charset=utf-8' } };
  return { raw: true, body: assets[kind], headers: { ...PAGE_HEADERS, 'content-type': kind === 'script' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8' } };
}

function consoleRoutes(path: string, brand: string): RouteDef[] {
  return [
    {
      method: 'GET',
      path,
      auth: 'none',
      body: 'none',
      summary: 'The admin console page',
      handler: (rc) => {
        // Asset and API urls start at the mount prefix (the public URL's path; a fetch host's base is the prefix alone).
        const mount = new URL(rc.baseUrl, 'http://localhost').pathname.replace(/\/+$/, '');
        return { raw: true, body: page(`${mount}${path}`, mount, brand), headers: { ...PAGE_HEADERS, 'content-type': 'text/html; charset=utf-8' } };
      },
    },
    { method: 'GET', path: `${path}/app.js`, auth: 'none', body: 'none', handler: () => asset('script') },
    { method: 'GET', path: `${path}/app.css`, auth: 'none', body: 'none', handler: () => asset('styles') },
  ];
}

const attribute = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

function page(base: string, mount: string, brand: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svcbase console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${attribute(base)}/app.css">
</head>
<body>
<div id="app" data-api="${attribute(mount)}" data-brand="${attribute(brand)}"><noscript>The svcbase console needs JavaScript.</noscript></div>
<script src="${attribute(base)}/app.js"></script>
</body>
</html>
`;
}

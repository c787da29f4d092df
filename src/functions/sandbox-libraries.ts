import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { svcError } from '../core/errors.js';
import { loadOptional } from '../core/optional-module.js';
import type { IconvLite } from './util-modules.js';

/**
 * Modules the hosted service bundles from npm libraries (rest-facts §7.2): `oMoment` is moment,
 * `oCryptoJS` is crypto-js, `oHtmlparser` is htmlparser 1.x. All are optional peer dependencies. Host-defined functions get the
 * library itself; deployed functions get its browser build evaluated inside their own sandbox the
 * first time they touch the module, so nothing of the host is shared.
 */
export const SANDBOX_LIBRARIES = {
  oMoment: { package: 'moment', file: 'moment/min/moment.min.js' },
  oCryptoJS: { package: 'crypto-js', file: 'crypto-js/crypto-js.js' },
  oHtmlparser: { package: 'htmlparser', file: 'htmlparser/lib/htmlparser.js' },
} as const;

export type SandboxLibraryName = keyof typeof SANDBOX_LIBRARIES;

/** The optional packages a sandbox worker uses, resolved from the package's own location. */
export interface SandboxPackages {
  /** A bundled library's source; throws the 11007 error naming the install when it is missing. */
  librarySource(name: string): string;
  /** iconv-lite for oEncodeing's charsets beyond Node's, when installed. */
  readonly iconv: IconvLite | undefined;
}

function isLibrary(name: string): name is SandboxLibraryName {
  return Object.hasOwn(SANDBOX_LIBRARIES, name);
}

function missing(name: SandboxLibraryName) {
  const pkg = SANDBOX_LIBRARIES[name].package;
  return svcError('featureDisabled', `modules.${name} (the server needs the optional peer dependency ${pkg}: npm install ${pkg})`);
}

/** The packages resolved from `resolveFrom` (a worker's own file may live elsewhere), each read once. */
export function sandboxPackages(resolveFrom: string): SandboxPackages {
  const require = createRequire(resolveFrom);
  const cache = new Map<string, string>();
  let iconv: { loaded: IconvLite | undefined } | null = null;
  return {
    librarySource(name) {
      if (!isLibrary(name)) throw svcError('invalidParameter', `no bundled library ${name.slice(0, 32)}`);
      let source = cache.get(name);
      if (source === undefined) {
        try {
          source = readFileSync(require.resolve(SANDBOX_LIBRARIES[name].file), 'utf8');
        } catch {
          throw missing(name);
        }
        cache.set(name, source);
      }
      return source;
    },
    get iconv() {
      if (!iconv) {
        try {
          iconv = { loaded: require('iconv-lite') as IconvLite };
        } catch {
          iconv = { loaded: undefined };
        }
      }
      return iconv.loaded;
    },
  };
}

/** The library for host-defined functions, or the 11007 error naming the install. */
export function hostLibrary(name: SandboxLibraryName): unknown {
  const mod = loadOptional(SANDBOX_LIBRARIES[name].package) as { default?: unknown } | undefined;
  if (mod === undefined) throw missing(name);
  return mod;
}

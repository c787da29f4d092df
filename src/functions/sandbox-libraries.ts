import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { svcError } from '../core/errors.js';
import { loadOptional } from '../core/optional-module.js';

/**
 * Modules the hosted service bundles from npm libraries (rest-facts §7.2): `oMoment` is moment,
 * `oCryptoJS` is crypto-js. Both are optional peer dependencies. Host-defined functions get the
 * library itself; deployed functions get its browser build evaluated inside their own sandbox the
 * first time they touch the module, so nothing of the host is shared.
 */
export const SANDBOX_LIBRARIES = {
  oMoment: { package: 'moment', file: 'moment/min/moment.min.js' },
  oCryptoJS: { package: 'crypto-js', file: 'crypto-js/crypto-js.js' },
} as const;

export type SandboxLibraryName = keyof typeof SANDBOX_LIBRARIES;

/** Reads a library's source for a sandbox; throws the 11007 error naming the install when it is missing. */
export type LibrarySource = (name: string) => string;

function isLibrary(name: string): name is SandboxLibraryName {
  return Object.hasOwn(SANDBOX_LIBRARIES, name);
}

function missing(name: SandboxLibraryName) {
  const pkg = SANDBOX_LIBRARIES[name].package;
  return svcError('featureDisabled', `modules.${name} (the server needs the optional peer dependency ${pkg}: npm install ${pkg})`);
}

/** Library sources resolved from `resolveFrom` (the package's own location), each read once. */
export function librarySources(resolveFrom: string): LibrarySource {
  const require = createRequire(resolveFrom);
  const cache = new Map<string, string>();
  return (name) => {
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
  };
}

/** The library for host-defined functions, or the 11007 error naming the install. */
export function hostLibrary(name: SandboxLibraryName): unknown {
  const mod = loadOptional(SANDBOX_LIBRARIES[name].package) as { default?: unknown } | undefined;
  if (mod === undefined) throw missing(name);
  return mod;
}

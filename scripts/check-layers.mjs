// Layer check: `npm run check:layers` (run from the repo root). Prints every violation, then a count;
// exits 1 when there is any. The rules (docs/architecture.md):
// - services (records, users, sms, captcha) import http/ only from route files (a name with "route");
// - the query engine (src/query) imports nothing from storage/, http/ or app/;
// - the folder-level import graph of src/ has no cycles (files directly in src/ count as "(root)");
// - authentication happens in http/ only: no file outside it imports http/'s credential, signature or
//   authentication modules (the package entry re-exports requestSignature for clients);
// - features are peers (issue 38): a feature reaches another only through that feature's index.ts
//   (its published API), never a module inside it;
// - http/ is the host kit: only http/ itself, route files, the host glue at the top of src/ (the
//   package entries and service.ts) and the CLI import it; features declare routes with the types
//   of src/features/ (issue 38);
// - features take sockets through the FeatureSocket port: no feature imports `ws`, or node's server
//   side (IncomingMessage, ServerResponse, Server, Duplex, createServer); outbound clients may use
//   node:http's `request` (issue 38);
// - no ambient caller: nothing in src/ uses AsyncLocalStorage (the caller is passed, D137);
// - test fakes live under src/testing/ (a `fake-*` file anywhere else fails).
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';

const SRC = resolve('src');
const SERVICES = ['records', 'users', 'sms', 'captcha'];
const ENGINE_MUST_NOT_IMPORT = ['storage', 'http', 'app'];
const AUTH_MODULES = ['auth', 'credentials', 'signature', 'upload-auth', 'upload-signature'].map((name) => join(SRC, 'http', `${name}.ts`));
const AUTH_IMPORTERS_ALLOWED = [join(SRC, 'index.ts')];
/** The feature folders: each publishes its API from its index.ts. */
const FEATURES = ['ai', 'captcha', 'console', 'files', 'functions', 'metrics', 'push', 'realtime', 'records', 'sms', 'system', 'users', 'wechat'];

function sourceFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts)$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function folderOf(path) {
  const parts = relative(SRC, path).split('/');
  return parts.length > 1 ? parts[0] : '(root)';
}

/** Relative imports and re-exports of a file (static and dynamic), resolved to .ts paths. */
function importsOf(file) {
  const text = readFileSync(file, 'utf8');
  const pattern = /(?:import|export)\s[^'"]*?from\s+['"](\.[^'"]+)['"]|import\(\s*['"](\.[^'"]+)['"]\s*\)/g;
  return [...text.matchAll(pattern)].map((m) => resolve(dirname(file), (m[1] ?? m[2]).replace(/\.js$/, '.ts')));
}

/** Whether a file imports `ws` or node's server-side HTTP/stream types. */
function importsServerSide(text) {
  const SERVER_SIDE = /\b(IncomingMessage|ServerResponse|Server|Duplex|createServer)\b/;
  return [...text.matchAll(/import\s+(?:type\s+)?([^'";]*?)\s*from\s+['"]([^'"]+)['"]/g)].some(
    ([, names, from]) => from === 'ws' || (['node:http', 'node:https', 'node:net', 'node:stream'].includes(from) && SERVER_SIDE.test(names)),
  );
}

/** Folder cycles: the strongly connected components (more than one folder) of the import graph. */
function cycles(edges) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const component = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1) found.push(component.sort());
  };
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((targets) => [...targets])]);
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

const files = sourceFiles(SRC);
const violations = [];
const edges = new Map();
for (const file of files) {
  const from = folderOf(file);
  for (const target of importsOf(file)) {
    if (!target.startsWith(SRC)) continue;
    const to = folderOf(target);
    if (from !== to) edges.set(from, (edges.get(from) ?? new Set()).add(to));
    if (SERVICES.includes(from) && to === 'http' && !/route/i.test(basename(file))) {
      violations.push(`service imports http: ${relative(SRC, file)}`);
    }
    if (from !== 'http' && AUTH_MODULES.includes(target) && !AUTH_IMPORTERS_ALLOWED.includes(file)) {
      violations.push(`authenticates outside http/: ${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
    if (from === 'query' && ENGINE_MUST_NOT_IMPORT.includes(to)) {
      violations.push(`engine does I/O or config: ${relative(SRC, file)} -> ${to}/`);
    }
    if (to === 'http' && from !== 'http' && from !== '(root)' && from !== 'cli' && !/route/i.test(basename(file))) {
      violations.push(`imports the host kit outside routes and glue: ${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
    if (from !== to && FEATURES.includes(from) && FEATURES.includes(to) && target !== join(SRC, to, 'index.ts')) {
      violations.push(`feature reaches into another: ${relative(SRC, file)} -> ${relative(SRC, target)}`);
    }
  }
  if ([...FEATURES, 'features'].includes(folderOf(file)) && importsServerSide(readFileSync(file, 'utf8'))) {
    violations.push(`feature holds a host's socket or server: ${relative(SRC, file)}`);
  }
  if (/\bAsyncLocalStorage\b/.test(readFileSync(file, 'utf8'))) violations.push(`ambient caller (AsyncLocalStorage): ${relative(SRC, file)}`);
  if (basename(file).startsWith('fake-') && folderOf(file) !== 'testing') violations.push(`test fake outside src/testing/: ${relative(SRC, file)}`);
}
for (const component of cycles(edges)) violations.push(`folder cycle: ${component.join(' <-> ')}`);
if (!existsSync('docs/architecture.md')) violations.push('no docs/architecture.md');

for (const violation of violations) console.log(`FAIL ${violation}`);
console.log(`layers: ${files.length} files, ${violations.length} violations`);
process.exit(violations.length > 0 ? 1 : 0);

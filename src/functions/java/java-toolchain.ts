import { accessSync, constants, existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** The JDK programs Java functions need. */
export interface JavaToolchain {
  readonly java: string;
  readonly javac: string;
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * `java` and `javac` from `javaHome/bin` when given, else the first directory of PATH holding both.
 * Null when there is no JDK (a JRE alone has no javac): Java deployments then answer 11209 and
 * everything else works.
 */
export function findJavaToolchain(javaHome?: string, path: string = process.env['PATH'] ?? ''): JavaToolchain | null {
  const dirs = javaHome ? [join(javaHome, 'bin')] : path.split(delimiter).filter(Boolean);
  for (const dir of dirs) {
    const java = join(dir, 'java');
    const javac = join(dir, 'javac');
    if (executable(java) && executable(javac)) return { java, javac };
  }
  return null;
}

/**
 * The directory holding the Java API and worker sources (`java/src`), found by walking up from this
 * module: `src/functions/java` in the repository, `dist` in the package. Null when the build left it out.
 */
export function javaSourceRoot(here: string): string | null {
  let dir = dirname(here);
  for (let up = 0; up < 5; up++) {
    const candidate = join(dir, 'java', 'src');
    if (existsSync(join(candidate, 'svcbase', 'worker', 'Main.java'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

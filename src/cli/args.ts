/** The command line as `svcbase <command> [--name value | --name=value | --flag] [positional...]`. */
export interface ParsedArgs {
  readonly command: string | undefined;
  readonly options: ReadonlyMap<string, string | true>;
  readonly positional: readonly string[];
}

/** `flags`: options that never take a value (`--no-files`), so the next word stays positional. */
export function parseArgs(argv: readonly string[], flags: ReadonlySet<string> = new Set()): ParsedArgs {
  const options = new Map<string, string | true>();
  const positional: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    if (eq > 0) options.set(arg.slice(2, eq), arg.slice(eq + 1));
    else if (!flags.has(arg.slice(2)) && i + 1 < argv.length && !argv[i + 1]!.startsWith('--')) options.set(arg.slice(2), argv[++i]!);
    else options.set(arg.slice(2), true);
  }
  const [command, ...rest] = positional;
  return { command, options, positional: rest };
}

/** A usage mistake: printed with the command's help, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** The string value of `--name`, else `fallback`; a bare `--name` without a value is a usage error. */
export function option(args: ParsedArgs, name: string, fallback?: string): string | undefined {
  const value = args.options.get(name);
  if (value === true) throw new UsageError(`--${name} needs a value`);
  return value ?? fallback;
}

export function requiredOption(args: ParsedArgs, name: string, envName?: string): string {
  const value = option(args, name, envName ? process.env[envName] : undefined);
  if (!value) throw new UsageError(`--${name}${envName ? ` (or ${envName})` : ''} is required`);
  return value;
}

/** Refuses options the command does not know (a typo must not silently do something else). */
export function assertKnownOptions(args: ParsedArgs, known: readonly string[]): void {
  for (const name of args.options.keys()) if (!known.includes(name)) throw new UsageError(`unknown option --${name}`);
}

/** `args` without `--name` (an option handled before the command sees its options). */
export function withoutOption(args: ParsedArgs, name: string): ParsedArgs {
  const options = new Map(args.options);
  options.delete(name);
  return { ...args, options };
}

import { it } from 'vitest';

/**
 * Opt-outs of a contract suite: case name -> why this store cannot pass it. Each skipped case is
 * reported as skipped with its own reason, never silently dropped.
 *
 * @example { 'take: of 200 concurrent callers exactly one gets the value': 'single-client test double' }
 */
export type OptOuts<CaseName extends string> = { readonly [Name in CaseName]?: string };

/** Registers one case with vitest `it`, skipped (with the reason in its name) when opted out. */
export function contractCase(name: string, reason: string | undefined, fn: () => Promise<void>): void {
  const optedOut = reason !== undefined;
  it.skipIf(optedOut)(optedOut ? `${name} (skipped: ${reason})` : name, fn);
}

/**
 * SQL fragments: text chunks with bound parameters in between, like a template literal. User
 * values only ever enter as parameters; identifiers enter through `ident`, which checks them
 * against the naming rules before the dialect quotes them. Rendering numbers the placeholders in
 * text order, so fragments compose in any order.
 */
export interface Sql {
  /** `chunks.length === params.length + 1`; `params[i]` sits between `chunks[i]` and `chunks[i+1]`. */
  readonly chunks: readonly string[];
  readonly params: readonly unknown[];
}

/** A value to bind as a parameter. */
export class SqlParam {
  constructor(readonly value: unknown) {}
}

export function param(value: unknown): SqlParam {
  return new SqlParam(value);
}

/** Trusted SQL text (keywords, quoted identifiers). Never user input. */
export function raw(text: string): Sql {
  return { chunks: [text], params: [] };
}

export const EMPTY: Sql = raw('');

/** Tagged template: `sql\`${a} = ${param(1)}\``; interpolations are fragments or parameters. */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<Sql | SqlParam>): Sql {
  const chunks: string[] = [strings[0]!];
  const params: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof SqlParam) {
      params.push(value.value);
      chunks.push(strings[i + 1]!);
    } else {
      chunks[chunks.length - 1] += value.chunks[0]!;
      for (let k = 0; k < value.params.length; k++) {
        params.push(value.params[k]);
        chunks.push(value.chunks[k + 1]!);
      }
      chunks[chunks.length - 1] += strings[i + 1]!;
    }
  });
  return { chunks, params };
}

/** Joins fragments with a trusted separator. */
export function join(parts: readonly Sql[], separator: string): Sql {
  if (parts.length === 0) return EMPTY;
  let out = parts[0]!;
  for (let i = 1; i < parts.length; i++) out = sql`${out}${raw(separator)}${parts[i]!}`;
  return out;
}

/** A compiled statement: SQL text with the dialect's placeholders and the values to bind. */
export interface CompiledQuery {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

export function render(fragment: Sql, placeholder: (index: number) => string): CompiledQuery {
  let text = fragment.chunks[0]!;
  for (let i = 0; i < fragment.params.length; i++) text += placeholder(i + 1) + fragment.chunks[i + 1]!;
  return { sql: text, parameters: fragment.params };
}

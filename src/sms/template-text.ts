import { svcError } from '../core/errors.js';

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/** The variable names of a template text, in order of first appearance (`${a} ${b} ${a}` -> a, b). */
export function templateVariables(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(PLACEHOLDER)) if (!names.includes(match[1]!)) names.push(match[1]!);
  return names;
}

/** Template variable values: strings or finite numbers. */
export type TemplateValues = Readonly<Record<string, string | number>>;

/**
 * Fills `${name}` placeholders. Checks the values against the template first: a missing or unknown
 * variable, or a value that is not a string or finite number, is 11042 naming the variables. Returns
 * the text and the values as strings in placeholder order (providers such as Tencent Cloud take
 * positional parameters).
 *
 * @example fillTemplate('Paid ${amount}', { amount: 12 }) // { text: 'Paid 12', variables: { amount: '12' } }
 */
export function fillTemplate(text: string, values: Readonly<Record<string, unknown>>): { text: string; variables: Record<string, string> } {
  const names = templateVariables(text);
  const missing = names.filter((n) => !Object.hasOwn(values, n));
  if (missing.length > 0) throw svcError('smsTemplateVariables', `missing template variable(s): ${missing.join(', ')}`);
  const unknown = Object.keys(values).filter((n) => !names.includes(n));
  if (unknown.length > 0) throw svcError('smsTemplateVariables', `unknown template variable(s): ${unknown.join(', ')}`);
  const variables: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name of names) {
    const value = values[name];
    if (typeof value === 'string') variables[name] = value;
    else if (typeof value === 'number' && Number.isFinite(value)) variables[name] = String(value);
    else throw svcError('smsTemplateVariables', `template variable '${name}' must be a string or a number`);
  }
  return { text: text.replace(PLACEHOLDER, (_, name: string) => variables[name]!), variables };
}

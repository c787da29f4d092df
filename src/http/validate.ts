import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { type SvcError, svcError } from '../core/errors.js';

/**
 * Compiles request-body JSON Schemas once per route and maps the first failure to a coded error that
 * names the field: a missing field is 118 (`param x is need.`), a wrong type 111, anything else 11005.
 */
export function createBodyValidator(): (schema: object) => (body: unknown) => void {
  const ajv = new Ajv({ allErrors: false, verbose: true, strict: true, coerceTypes: false, useDefaults: false });
  const cache = new WeakMap<object, ValidateFunction>();
  return (schema) => {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(schema);
      cache.set(schema, validate);
    }
    const compiled = validate;
    return (body) => {
      if (!compiled(body)) throw toSvcError(compiled.errors?.[0]);
    };
  };
}

function fieldName(error: ErrorObject): string {
  const path = error.instancePath.replace(/^\//, '').replace(/\//g, '.');
  return path || 'body';
}

function toSvcError(error: ErrorObject | undefined): SvcError {
  if (!error) return svcError('invalidParameter', 'invalid request body');
  switch (error.keyword) {
    case 'required':
      return svcError('paramRequired', String((error.params as { missingProperty: string }).missingProperty));
    case 'type':
      return svcError('typeMismatch', fieldName(error), String((error.params as { type: string }).type), describe(error.data));
    case 'additionalProperties':
      return svcError('invalidParameter', `unknown field '${String((error.params as { additionalProperty: string }).additionalProperty)}'`);
    default:
      return svcError('invalidParameter', `${fieldName(error)}: ${error.message ?? 'invalid'}`);
  }
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

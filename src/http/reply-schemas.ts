/**
 * JSON Schemas of the replies routes share, for `RouteDef.responses` (GET /1/openapi.json): records,
 * lists, writes and `{msg: "ok"}`, in the wire forms the SDKs read.
 */
export const WIRE_DATE = { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}$' } as const;
export const RECORD_REPLY = { type: 'object', required: ['objectId', 'createdAt', 'updatedAt'], properties: { objectId: { type: 'string' }, createdAt: WIRE_DATE, updatedAt: WIRE_DATE } } as const;
export const CREATED_REPLY = { type: 'object', required: ['objectId', 'createdAt'], properties: { objectId: { type: 'string' }, createdAt: WIRE_DATE } } as const;
export const UPDATED_REPLY = { type: 'object', required: ['updatedAt'], properties: { updatedAt: WIRE_DATE } } as const;
export const LIST_REPLY = { type: 'object', properties: { results: { type: 'array', items: { type: 'object' } }, count: { type: 'integer', minimum: 0 } } } as const;
export const OK_REPLY = { type: 'object', required: ['msg'], properties: { msg: { const: 'ok' } } } as const;
/** A user as its own session sees it after sign-up or login: the record and its session token. */
export const SESSION_USER_REPLY = {
  type: 'object',
  required: ['objectId', 'createdAt', 'sessionToken'],
  properties: { objectId: { type: 'string' }, createdAt: WIRE_DATE, sessionToken: { type: 'string' } },
} as const;
/** A table as the schema API describes it. */
export const SCHEMA_REPLY = {
  type: 'object',
  required: ['className', 'fields', 'classLevelPermissions', 'indexes'],
  properties: { className: { type: 'string' }, fields: { type: 'object' }, classLevelPermissions: { type: 'object' }, indexes: { type: 'object' } },
} as const;
/** `{results: [...]}` of objects matching `item`. */
export const resultsOf = (item: object) => ({ type: 'object', required: ['results'], properties: { results: { type: 'array', items: item } } }) as const;

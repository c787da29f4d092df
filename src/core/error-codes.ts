/**
 * The one code table. Every client-facing error svcbase sends is listed here with the service's
 * numeric code (rest-facts §8 of the protocol notes), the HTTP status it travels with, and a message
 * template (`%s` is replaced by the arguments in order). Every status is a 4xx (PROTOCOL decision 3: the
 * SDK's axios transport drops the body of any 5xx); a failed dependency (SMS provider, mail server, a
 * cloud function that did not answer) is 424.
 *
 * Codes 100-10210 are the hosted service's own numbers. Conditions the service leaves unnamed use the
 * svcbase block 11000-11999; those numbers are stable and documented in docs/errors.md.
 */
export const ERROR_CODES = {
  // --- objects, fields, values (hosted service numbers) ---
  objectNotFound: { code: 101, status: 404, message: 'object not found for %s.' },
  loginFailed: { code: 101, status: 400, message: 'username or password incorrect.' },
  invalidQueryKey: { code: 102, status: 400, message: '%s' },
  invalidClassName: { code: 103, status: 400, message: "classname '%s' must start with a letter and hold only letters, digits and '_'." },
  objectIdRequired: { code: 103, status: 400, message: 'objectId required.' },
  relationClassMissing: { code: 104, status: 400, message: "relation className '%s' not exists." },
  invalidFieldName: { code: 105, status: 400, message: 'invalid field name: %s.' },
  reservedField: { code: 105, status: 400, message: 'It is a reserved field: %s.' },
  invalidPointer: { code: 106, status: 400, message: '%s: is not a valid Pointer.' },
  invalidJson: { code: 107, status: 400, message: 'invalid json: %s.' },
  unsupportedContentType: { code: 107, status: 400, message: 'This endpoint only supports Content-Type: application/json requests, not %s.' },
  invalidDate: { code: 107, status: 400, message: 'invalid date: %s.' },
  invalidOp: { code: 107, status: 400, message: 'invalid op value: %s.' },
  contentEmpty: { code: 107, status: 400, message: 'content is empty.' },
  usernamePasswordRequired: { code: 108, status: 400, message: 'username and password required.' },
  loginDataRequired: { code: 109, status: 400, message: 'login data required.' },
  typeMismatch: { code: 111, status: 400, message: "invalid type for key '%s', expected '%s', but got '%s'." },
  batchNotArray: { code: 112, status: 400, message: 'requests must be an array.' },
  batchItemInvalid: { code: 113, status: 400, message: 'every request should be an object like {"method":"POST","path":"/1/classes/GameScore","body":{}}: %s' },
  batchTooLarge: { code: 114, status: 400, message: 'requests array larger than %s.' },
  geoOutOfRange: { code: 117, status: 400, message: '%s' },
  paramRequired: { code: 118, status: 400, message: 'param %s is need.' },
  emailVerifyDisabled: { code: 120, status: 400, message: 'email verification must be enabled in the application settings.' },
  fieldMissing: { code: 201, status: 400, message: "'%s' missing." },
  usernameTaken: { code: 202, status: 400, message: "username '%s' already taken." },
  emailTaken: { code: 203, status: 400, message: "email '%s' already taken." },
  emailRequired: { code: 204, status: 400, message: 'you must provide an email.' },
  userNotFound: { code: 205, status: 400, message: "no user found with %s '%s'." },
  sessionTokenRequired: { code: 206, status: 400, message: 'sessionToken error: changing or deleting a user needs its session token or the master key.' },
  smsCodeWrong: { code: 207, status: 400, message: 'code error: %s.' },
  phoneTaken: { code: 209, status: 400, message: "mobilePhoneNumber '%s' already taken." },
  oldPasswordWrong: { code: 210, status: 400, message: 'old password incorrect.' },
  sessionInvalid: { code: 211, status: 400, message: 'please log in: the session token is missing, unknown or expired.' },
  invalidPhone: { code: 301, status: 400, message: '%s' },
  uniqueViolation: { code: 401, status: 400, message: 'unique index cannot has duplicate value: %s.' },
  whereTooLarge: { code: 402, status: 400, message: 'query where larger than %s bytes.' },
  forbidden: { code: 501, status: 403, message: 'you are forbidden: %s' },
  contentCheckFailed: { code: 10007, status: 400, message: '%s' },
  smsRateLimited: { code: 10010, status: 429, message: "mobile '%s' send message limited, retry after %s seconds." },
  smsQuotaEmpty: { code: 10011, status: 400, message: 'the SMS quota of this application is used up.' },
  smsIdNotFound: { code: 10018, status: 404, message: 'smsId:%s not found.' },
  smsTemplateUnknown: { code: 10022, status: 400, message: 'template %s does not exist.' },
  newPasswordEmpty: { code: 10050, status: 400, message: 'new password is empty.' },
  newPasswordNotString: { code: 10051, status: 400, message: 'new password must string.' },
  requestRateLimited: { code: 10076, status: 429, message: 'Qps beyond the limit: %s, retry after %s seconds.' },

  // --- svcbase block: conditions the hosted service leaves unnamed ---
  routeNotFound: { code: 11001, status: 404, message: 'no route for %s %s.' },
  bodyTooLarge: { code: 11002, status: 413, message: 'request body larger than %s bytes.' },
  bodyTooDeep: { code: 11003, status: 400, message: 'request body nested deeper than %s levels.' },
  forbiddenKey: { code: 11004, status: 400, message: "forbidden key '%s' in request body." },
  invalidParameter: { code: 11005, status: 400, message: '%s' },
  masterKeyRequired: { code: 11006, status: 403, message: 'this operation needs the master key.' },
  featureDisabled: { code: 11007, status: 403, message: "feature '%s' is not enabled for this application." },
  captchaTokenInvalid: { code: 11010, status: 400, message: 'captcha token is unknown, used or expired.' },
  captchaCodeWrong: { code: 11011, status: 400, message: 'captcha code is wrong.' },
  validateTokenInvalid: { code: 11012, status: 400, message: 'validate_token is missing, unknown, used or expired.' },
  regexNotInPlan: { code: 11020, status: 403, message: "$regex is not enabled in this application's plan." },
  regexUnsafe: { code: 11021, status: 400, message: 'unsafe or too complex $regex pattern: %s' },
  functionTimeout: { code: 11030, status: 424, message: 'cloud function %s did not respond within %s ms.' },
  functionSuspended: { code: 11031, status: 403, message: 'cloud function %s is suspended after repeated timeouts.' },
  functionNotFound: { code: 11032, status: 404, message: 'cloud function %s does not exist.' },
  smsTemplateNotApproved: { code: 11040, status: 400, message: 'template %s is not approved.' },
  smsTemplateWrongKind: { code: 11041, status: 400, message: 'template %s is a %s template and cannot be used here.' },
  smsTemplateVariables: { code: 11042, status: 400, message: '%s' },
  smsCodeExhausted: { code: 11043, status: 400, message: 'code error: too many wrong attempts, request a new code.' },
  smsProviderFailed: { code: 11044, status: 424, message: 'the SMS provider failed: %s' },
  loginThrottled: { code: 11050, status: 429, message: 'too many login attempts, retry after %s seconds.' },
  resetLinkInvalid: { code: 11051, status: 400, message: 'the link is unknown, used or expired.' },
  notSortable: { code: 11060, status: 400, message: "cannot order by '%s': only number, date and string columns are sortable." },
  transactionFailed: { code: 11070, status: 400, message: 'batch transaction rolled back: item %s failed.' },
  batchTableRefused: { code: 11071, status: 400, message: 'batch requests cannot change table %s (item %s).' },
  // --- storage schema rules (issues 11 and 12: D4, D8) ---
  classNameCollision: { code: 11080, status: 400, message: "class '%s' differs only in letter case from the existing class '%s'." },
  fieldNameCollision: { code: 11081, status: 400, message: "field '%s' differs only in letter case from the existing field '%s' of %s." },
  tooManyTables: { code: 11082, status: 400, message: "cannot create class '%s': this application already has %s classes (its limit)." },
  tooManyColumns: { code: 11083, status: 400, message: "cannot add field '%s': class %s already has %s fields (its limit)." },
  mailSendFailed: { code: 11052, status: 424, message: 'the mail could not be sent, try again later.' },
  // --- H3 block: query footprint, user links, sign-up limits ---
  tooManyInnerQueries: { code: 11100, status: 400, message: 'where has more than %s inner queries ($inQuery, $notInQuery, $select, $dontSelect, $relatedTo).' },
  linkBaseUrlMissing: { code: 11101, status: 403, message: 'users.linkBaseUrl is not configured: this server cannot mail links.' },
  passwordHashBusy: { code: 11102, status: 429, message: 'too many password hashes in progress, retry after %s seconds.' },
  // --- H2: query time budgets (D2) ---
  queryOverBudget: { code: 11090, status: 400, message: 'query stopped: it ran longer than its budget of %s ms; narrow the where or add an index.' },
  queryBusy: { code: 11091, status: 429, message: 'too many slow queries in progress, retry after %s seconds.' },
  // --- issue 13 (h2): host write hooks and feature composition ---
  hookRefused: { code: 11110, status: 400, message: '%s' },
  hookChangeInvalid: { code: 11111, status: 400, message: "the beforeSave hook of %s changed '%s', which hooks may not change." },
  featureRequirementMissing: { code: 11112, status: 400, message: "feature '%s' requires '%s', which is not in this service." },
  featureCycle: { code: 11113, status: 400, message: 'features require each other in a cycle: %s.' },
  featureDuplicate: { code: 11114, status: 400, message: "two features share the id '%s'." },
  featureNotFound: { code: 11115, status: 400, message: "feature '%s' is not in this service (ctx.use); declare it in requires or use ctx.find." },
  hookValueInvalid: { code: 11117, status: 400, message: "the beforeSave hook of %s set '%s' to something that is not a storable value or field name." },
  featureSettingsInvalid: { code: 11116, status: 400, message: "application '%s': settings of feature '%s' are invalid: %s" },
} as const satisfies Record<string, { code: number; status: number; message: string }>;

/** Symbolic name of a client-facing error condition. */
export type ErrorName = keyof typeof ERROR_CODES;

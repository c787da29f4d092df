import type { Json } from '../core/wire-values.js';
import type { NodeRSA } from './rsa-module.js';
import type { HttpModule } from './http-module.js';
import type { RedisModule } from './redis-module.js';
import type { EncodingModule, EventModule, GzipModule, LogModule } from './util-modules.js';

export type { EncodingModule, EventModule, GzipModule, LogModule } from './util-modules.js';

export type { FunctionRedisClient, FunctionRedisOptions, RedisModule } from './redis-module.js';

export type { HttpCallback, HttpModule, HttpModuleOptions, HttpRequestOptions, HttpResult } from './http-module.js';

/**
 * What a cloud function sees of its call (rest-facts §7.2): `method` is `POST` for REST and SDK calls
 * (`request.body` the JSON object sent), `GET` or `POST` on the plain-HTTP path (`request.query`, and
 * `request.body` the form fields of a urlencoded POST).
 */
export interface FunctionRequest {
  readonly method: string;
  readonly body: { readonly [key: string]: Json };
  readonly query: { readonly [key: string]: string };
  /** Request headers, names lower-case (plain-HTTP calls; REST calls see theirs too). */
  readonly headers: { readonly [key: string]: string };
  /** The body's bytes as sent, when there was one (Java functions' `getBody()`). */
  readonly raw?: Uint8Array;
  /** The path called (`/<secretKey>/<name>`, `/1/functions/<name>`), for Java functions' `getPath()`. */
  readonly path?: string;
}

/**
 * How a function answers: `send` (or `end`) once with a string or any JSON value; over REST the
 * caller gets `{"result": value}`, on the plain-HTTP path the value itself with the status and
 * headers set here. A function that never sends counts as a timeout.
 */
export interface FunctionResponse {
  /** Bytes are sent as they are on the plain-HTTP path (REST replies carry them as UTF-8 text). */
  send(value?: Json | Uint8Array): void;
  end(value?: Json | Uint8Array): void;
  setHeader(name: string, value: string): void;
  /** The HTTP status of a plain-HTTP reply (default 200; REST replies are always 200). */
  status(code: number): FunctionResponse;
}

/** Node-style callback of the hosted modules: `data` is a JSON string the function parses. */
export type ModuleCallback = (err: { code: number; error: string } | null, data?: string) => void;

/** A module method: callback style (the hosted service's) or, without a callback, a promise of the parsed value. */
export interface ModuleMethod<P> {
  (params: P, callback: ModuleCallback): void;
  (params: P): Promise<Json>;
}

/** `modules.oData`, as rest-facts §7.2 lists it (the REST shapes; data access runs as the caller). */
export interface DataModule {
  find: ModuleMethod<{ table: string; keys?: string; where?: Json; order?: string; limit?: number; skip?: number; count?: number; include?: string }>;
  findOne: ModuleMethod<{ table: string; objectId: string; keys?: string; include?: string }>;
  insert: ModuleMethod<{ table: string; data: { [key: string]: Json } }>;
  update: ModuleMethod<{ table: string; objectId: string; data: { [key: string]: Json } }>;
  remove: ModuleMethod<{ table: string; objectId: string }>;
  /** Sets headers for the following calls: `X-Bmob-Master-Key` (act as master) or `X-Bmob-Session-Token` (act as that user). */
  setHeader(headers: { [name: string]: string }): void;
}

/** `oData`'s user methods, as the users REST routes answer them (11007 when the users feature is off). */
export interface UserDataMethods {
  userSignUp: ModuleMethod<{ data: { [key: string]: Json } }>;
  userLogin: ModuleMethod<{ username: string; password: string }>;
  /** The hosted name (sic): `/1/requestPasswordReset` with `{data: {email}}`. */
  userRestPassword: ModuleMethod<{ data?: { [key: string]: Json }; email?: string }>;
  requestEmailVerify: ModuleMethod<{ data?: { [key: string]: Json }; email?: string }>;
  getUserByObjectId: ModuleMethod<{ objectId: string }>;
  /** Needs the user's session (`setHeader`) or the master key. */
  updateUserByObjectId: ModuleMethod<{ objectId: string; data: { [key: string]: Json } }>;
  removeUserByObjectId: ModuleMethod<{ objectId: string }>;
  getAllUser: ModuleMethod<{ limit?: number; skip?: number } | undefined>;
}

/** `modules.oFunctions`: another function of the same application (bounded call depth). */
export interface FunctionsModule {
  run: ModuleMethod<{ name: string; data?: { [key: string]: Json } }>;
}

type Table = { table: string };
type Row = Table & { objectId: string };
type Data = { data: { [key: string]: Json } };
type Query = Table & { where?: Json; order?: string; limit?: number; skip?: number; count?: number; include?: string; keys?: string };

/** `modules.oRelation`: Pointer and Relation writes and queries (`table: "users"` is `_User`). */
export interface RelationModule {
  add: ModuleMethod<Table & Data>;
  update: ModuleMethod<Row & Data>;
  delete: ModuleMethod<Row & Data>;
  query: ModuleMethod<Query>;
}

/** `modules.oAtom`: atomic field operations (`Increment`) on one record. */
export interface AtomModule {
  exec: ModuleMethod<Row & Data>;
}

/** `modules.oArray`: array operations; `add` without an objectId creates the record. */
export interface ArrayModule {
  add: ModuleMethod<Table & Data & { objectId?: string }>;
  addUnique: ModuleMethod<Row & Data>;
  remove: ModuleMethod<Row & Data>;
  query: ModuleMethod<Query>;
}

/** `modules.oLocation`: GeoPoint writes (an update of an existing row) and geo queries. */
export interface LocationModule {
  create: ModuleMethod<Row & Data>;
  query: ModuleMethod<Query>;
}

/** `modules.oBatch`: `POST /1/batch` (at most the application's batch size; no user table). */
export interface BatchModule {
  exec: ModuleMethod<{ data: { requests: Json; transaction?: boolean } }>;
}

/** `modules.oCrypto`: `createHash('md5' | 'sha1' | 'sha256').update(text).digest('hex' | 'base64')`. */
export interface CryptoModule {
  createHash(algorithm: string): { update(text: string): { digest(encoding: 'hex' | 'base64'): string } };
}

/** `modules.oBql`: a BQL statement with its `values` (a JSON array, or its text as the hosted module takes it). */
export interface BqlModule {
  exec: ModuleMethod<{ bql: string; values?: Json[] | string }>;
}

/** `modules.oFile`: deleting a stored file of the application (the only file operation of the hosted module). */
export interface FileModule {
  del: ModuleMethod<{ url: string }>;
}

/** A moment value, by the calls functions commonly make (cast to moment's own types for the rest). */
export interface MomentValue {
  format(pattern?: string): string;
  valueOf(): number;
  unix(): number;
  toISOString(): string;
  add(amount: number, unit: string): MomentValue;
  subtract(amount: number, unit: string): MomentValue;
  utc(): MomentValue;
  local(): MomentValue;
  startOf(unit: string): MomentValue;
  endOf(unit: string): MomentValue;
  diff(other: MomentValue | string | number | Date, unit?: string): number;
  isBefore(other: MomentValue | string | number | Date): boolean;
  isAfter(other: MomentValue | string | number | Date): boolean;
  toDate(): Date;
  isValid(): boolean;
  readonly [method: string]: unknown;
}

/** `modules.oMoment`: the moment function (the optional peer `moment`). */
export interface MomentModule {
  (input?: string | number | Date, format?: string, strict?: boolean): MomentValue;
  utc(input?: string | number | Date, format?: string): MomentValue;
  unix(seconds: number): MomentValue;
  readonly [member: string]: unknown;
}

/** `modules.oCryptoJS`: crypto-js (the optional peer); cast to `typeof import('crypto-js')` for its types. */
export type CryptoJsModule = { readonly [member: string]: unknown };

/** One node of htmlparser's DOM. */
export interface HtmlNode {
  readonly type: 'tag' | 'text' | 'comment' | 'directive' | 'script' | 'style' | 'cdata';
  readonly name?: string;
  readonly data: string;
  readonly raw: string;
  readonly attribs?: { readonly [name: string]: string };
  readonly children?: readonly HtmlNode[];
}

/** `modules.oHtmlparser`: htmlparser 1.x (the optional peer `htmlparser`), as the hosted module. */
export interface HtmlparserModule {
  DefaultHandler: new (callback: (error: unknown, dom: HtmlNode[]) => void, options?: { ignoreWhitespace?: boolean; verbose?: boolean; enforceEmptyTags?: boolean }) => { readonly dom: HtmlNode[] };
  Parser: new (handler: object) => { parseComplete(html: string): void; parseChunk(html: string): void; done(): void; reset(): void };
  DomUtils: { readonly [helper: string]: unknown };
  readonly [member: string]: unknown;
}

/** The modules a host-defined function receives (more arrive with deployed functions). */
export interface FunctionModules {
  readonly oEvent: EventModule;
  readonly oGzip: GzipModule;
  readonly oEncodeing: EncodingModule;
  readonly oLog: LogModule;
  readonly oFile: FileModule;
  /** The host's Redis, namespaced per application (docs/functions.md); 11039 when not configured. */
  readonly oRedis: RedisModule;
  readonly oBql: BqlModule;
  /** Outbound HTTP with a timeout, a size cap and no private destinations (docs/functions.md). */
  readonly oHttp: HttpModule;
  readonly oData: DataModule & UserDataMethods;
  readonly oFunctions: FunctionsModule;
  readonly oRelation: RelationModule;
  readonly oAtom: AtomModule;
  readonly oArray: ArrayModule;
  readonly oLocation: LocationModule;
  readonly oBatch: BatchModule;
  readonly oCrypto: CryptoModule;
  /** node-rsa's `NodeRSA` class: `new modules.oCryptoRSA({ b: 512 })`, `encrypt(text, 'base64')`, `decrypt(x, 'utf8')`. */
  readonly oCryptoRSA: typeof NodeRSA;
  readonly oMoment: MomentModule;
  readonly oCryptoJS: CryptoJsModule;
  readonly oHtmlparser: HtmlparserModule;
}

/** A cloud function: `onRequest(request, response, modules)` of the hosted service. */
export type CloudFunction = (request: FunctionRequest, response: FunctionResponse, modules: FunctionModules) => void | Promise<void>;

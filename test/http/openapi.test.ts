import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_APP, type TestResponse, type TestServer, startTestServer } from '../helpers/server.js';
import { FAST_SCRYPT } from '../users/users-server.js';
import { memorySmsTransport } from '../../src/sms/memory-transport.js';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };

describe('GET /1/openapi.json', () => {
  let server: TestServer;
  let doc: Doc;
  const ajv = new Ajv2020({ strict: false, allErrors: true });

  /** Checks a real reply against the document's schema for its route and status (or `default` for errors). */
  const conforms = (path: string, method: string, res: TestResponse) => {
    const operation = doc.paths[path]?.[method];
    expect(operation, `${method} ${path} is described`).toBeDefined();
    const response = operation!.responses[String(res.status)] ?? operation!.responses['default'];
    const schema = response?.content?.['application/json']?.schema;
    expect(schema, `${method} ${path} ${res.status} has a schema`).toBeDefined();
    const valid = ajv.validate(schema!, res.body);
    expect(valid, `${method} ${path} ${res.status}: ${ajv.errorsText()} in ${res.text}`).toBe(true);
  };

  beforeAll(async () => {
    server = await startTestServer({
      captcha: false,
      brands: ['Svc', 'Bmob'],
      users: { scrypt: FAST_SCRYPT },
      functions: { definitions: { hello: (request, response) => response.send({ hi: String(request.body['name']) }) } },
      sms: { transport: memorySmsTransport() },
      applications: [{ ...TEST_APP, settings: { features: { realtime: true } } }],
    });
    const res = await server.request('GET', '/1/openapi.json', { auth: false });
    expect(res.status).toBe(200);
    doc = res.body as Doc;
  });
  afterAll(() => server.close());

  it('is a valid OpenAPI 3.1 document (the official schema, through @seriousme/openapi-schema-validator)', async () => {
    const result = await new Validator().validate(doc as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('lists every route the service serves, with its credentials and path parameters', () => {
    for (const route of server.service.routes) {
      if (route.method === '*') continue;
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
      expect(doc.paths[path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    }
    const get = doc.paths['/1/classes/{table}/{objectId}']!['get'] as unknown as { parameters: Array<{ name: string }>; security: unknown[] };
    expect(get.parameters.map((p) => p.name)).toEqual(['table', 'objectId']);
    expect(get.security).toContainEqual({ masterKey: [] });
    expect(JSON.stringify(doc)).toContain('X-Svc-Application-Id');
  });

  it('describes the real replies of the records, system and error paths', async () => {
    const master = { auth: 'master' as const };
    conforms('/1/timestamp', 'get', await server.request('GET', '/1/timestamp'));
    conforms('/health', 'get', await server.request('GET', '/health', { auth: false }));
    conforms('/ready', 'get', await server.request('GET', '/ready', { auth: false }));
    const created = await server.request('POST', '/1/classes/Doc', { body: { title: 'a', n: 1 } });
    conforms('/1/classes/{table}', 'post', created);
    const id = (created.body as { objectId: string }).objectId;
    conforms('/1/classes/{table}/{objectId}', 'get', await server.request('GET', `/1/classes/Doc/${id}`));
    conforms('/1/classes/{table}', 'get', await server.request('GET', '/1/classes/Doc?count=1&where=%7B%22n%22%3A1%7D'));
    conforms('/1/classes/{table}/{objectId}', 'put', await server.request('PUT', `/1/classes/Doc/${id}`, { body: { n: { __op: 'Increment', amount: 1 } } }));
    conforms('/1/batch', 'post', await server.request('POST', '/1/batch', { body: { requests: [{ method: 'POST', path: '/1/classes/Doc', body: { n: 2 } }, { method: 'DELETE', path: '/1/classes/Doc/nope' }] } }));
    conforms('/1/classes/{table}/{objectId}', 'delete', await server.request('DELETE', `/1/classes/Doc/${id}`, master));
    // Errors: a coded one, and a refused credential.
    conforms('/1/classes/{table}/{objectId}', 'get', await server.request('GET', `/1/classes/Doc/${id}`));
    conforms('/1/classes/{table}', 'post', await server.request('POST', '/1/classes/Doc', { body: { n: 'not a number' } }));
    const refused = await server.request('GET', '/1/timestamp', { auth: false, headers: { 'X-Svc-Application-Id': TEST_APP.applicationId, 'X-Svc-REST-API-Key': 'wrong' } });
    expect(refused.status).toBe(401);
    conforms('/1/timestamp', 'get', refused);
  });

  it('describes the real replies of the users and functions routes', async () => {
    const signedUp = await server.request('POST', '/1/users', { body: { username: 'openapi-user', password: 'secret-pass' } });
    expect(signedUp.status).toBe(201);
    conforms('/1/users', 'post', signedUp);
    const login = await server.request('GET', '/1/login?username=openapi-user&password=secret-pass');
    conforms('/1/login', 'get', login);
    const { objectId, sessionToken } = login.body as { objectId: string; sessionToken: string };
    const session = { headers: { 'X-Svc-Session-Token': sessionToken } };
    conforms('/1/users/me', 'get', await server.request('GET', '/1/users/me', session));
    conforms('/1/users/{objectId}', 'get', await server.request('GET', `/1/users/${objectId}`));
    conforms('/1/users/{objectId}', 'put', await server.request('PUT', `/1/users/${objectId}`, { ...session, body: { nickname: 'n' } }));
    conforms('/1/users', 'get', await server.request('GET', '/1/users?limit=5', { auth: 'master' }));
    conforms('/1/login', 'get', await server.request('GET', '/1/login?username=openapi-user&password=wrong'));
    conforms('/1/functions/{name}', 'post', await server.request('POST', '/1/functions/hello', { body: { name: 'doc' } }));
    conforms('/1/logout', 'post', await server.request('POST', '/1/logout', session));
  });

  it('describes the real replies of the SMS, schema, cloud code, settings, import and admin routes', async () => {
    const master = { auth: 'master' as const };
    const sent = await server.request('POST', '/1/requestSmsCode', { body: { mobilePhoneNumber: '13800138000' } });
    conforms('/1/requestSmsCode', 'post', sent);
    conforms('/1/querySms/{smsId}', 'get', await server.request('GET', `/1/querySms/${(sent.body as { smsId: number }).smsId}`));
    conforms('/1/verifySmsCode', 'post', await server.request('POST', '/1/verifySmsCode', { body: { mobilePhoneNumber: '13800138000', smsCode: '000000' } }));
    conforms('/1/smsQuota', 'get', await server.request('GET', '/1/smsQuota', master));
    conforms('/1/appSettings', 'get', await server.request('GET', '/1/appSettings', master));
    conforms('/1/realtime/connections', 'get', await server.request('GET', '/1/realtime/connections', master));
    conforms('/1/schemas/{className}', 'post', await server.request('POST', '/1/schemas/Shape', { ...master, body: { fields: { n: { type: 'Number' } } } }));
    conforms('/1/schemas/{className}', 'put', await server.request('PUT', '/1/schemas/Shape', { ...master, body: { indexes: { by_n: { n: 1 } } } }));
    conforms('/1/schemas/{className}', 'get', await server.request('GET', '/1/schemas/Shape', master));
    conforms('/1/schemas', 'get', await server.request('GET', '/1/schemas', master));
    conforms('/1/import/{table}', 'post', await server.request('POST', '/1/import/Shape', { ...master, body: { records: [{ objectId: 'imp1', createdAt: '2024-01-01 00:00:00', n: 1 }] } }));
    conforms('/1/schemas/{className}', 'delete', await server.request('DELETE', '/1/schemas/Shape', master));
    const source = 'function onRequest(request, response) { response.send("ok") }\nexports.onRequest = onRequest;';
    conforms('/1/cloudCode/{name}', 'put', await server.request('PUT', '/1/cloudCode/docfn', { ...master, body: { language: 'node', source } }));
    conforms('/1/cloudCode', 'get', await server.request('GET', '/1/cloudCode', master));
    conforms('/1/cloudCode/{name}', 'get', await server.request('GET', '/1/cloudCode/docfn', master));
    conforms('/1/cloudCode/{name}/logs', 'get', await server.request('GET', '/1/cloudCode/docfn/logs', master));
    conforms('/1/cloudCode/{name}', 'put', await server.request('PUT', '/1/cloudCode/docfn', { ...master, body: { suspended: false } }));
    conforms('/1/cloudCode/{name}', 'delete', await server.request('DELETE', '/1/cloudCode/docfn', master));
  });
});

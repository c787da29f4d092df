/**
 * The quick start: `npm install && npm start`. A real svcbase server on node:http and SQLite, with a
 * development application whose keys are fixed (override them with env variables), every feature
 * switch on, an unlimited SMS quota, and SMS/mail "sent" to this terminal.
 *
 *   PORT (3000)  SVC_DB (./data/svcbase.db)  SVC_APP_ID  SVC_REST_KEY  SVC_MASTER_KEY  SVC_SECRET_KEY
 *   SVC_SECURITY_CODE  SVC_PUBLIC_URL (base of mailed links; default the listen URL)
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { type ApplicationConfig, consoleMailTransport, consoleSmsTransport, createService, lineLogger } from 'svcbase';
import { toNodeListener } from 'svcbase/node';
import { sqliteCounterStore, sqliteKvStore, sqliteStorage } from 'svcbase/sqlite';

const env = process.env;
const print = (line: string) => process.stdout.write(line + '\n');

/** `publicUrl`: where clients reach this server, the base of mailed links (SVC_PUBLIC_URL, else the listen URL). */
export function devApplication(publicUrl?: string): ApplicationConfig {
  return {
    applicationId: env.SVC_APP_ID ?? 'dev-app-id',
    restApiKey: env.SVC_REST_KEY ?? 'dev-rest-key',
    masterKey: env.SVC_MASTER_KEY ?? 'dev-master-key',
    secretKey: env.SVC_SECRET_KEY ?? 'dev-secret-key',
    securityCode: env.SVC_SECURITY_CODE ?? 'dev-safe-code',
    settings: {
      features: { regex: true, emailVerification: true, realtime: true },
      users: { linkBaseUrl: env.SVC_PUBLIC_URL ?? publicUrl ?? `http://127.0.0.1:${env.PORT ?? 3000}` },
      sms: {
        quota: 'unlimited',
        templates: [
          { name: 'order-shipped', kind: 'notification', approved: true, text: 'Your order ${order} has shipped, arriving ${day}.' },
          { name: 'login-captcha', kind: 'code', approved: true, captchaRequired: true, validityMinutes: 5, text: 'Login code ${code}, valid 5 minutes.' },
        ],
      },
    },
  };
}

/** Starts the server; resolves once it listens. `port` 0 picks a free port (tests). */
export async function start(options: { port?: number; dbFile?: string; quiet?: boolean } = {}) {
  const dbFile = resolve(options.dbFile ?? env.SVC_DB ?? 'data/svcbase.db');
  mkdirSync(dirname(dbFile), { recursive: true });
  const db = new Database(dbFile);
  const log = options.quiet ? () => {} : print;
  // Listen first: the listen URL is the base of mailed links unless SVC_PUBLIC_URL says otherwise.
  const server = createServer();
  const port = options.port ?? Number(env.PORT ?? 3000);
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const service = createService({
    storage: sqliteStorage({ database: db }),
    kv: sqliteKvStore({ database: db }),
    counters: sqliteCounterStore({ database: db }),
    applications: [devApplication(url)],
    brands: ['Svc', 'Bmob'],
    sms: { transport: consoleSmsTransport({ write: (line) => log(`[sms] ${line}`) }) },
    mail: consoleMailTransport({ write: (line) => log(`[mail] ${line}`) }),
    logger: lineLogger((line) => log(`[svcbase] ${line}`), 'info'),
  });
  server.on('request', toNodeListener(service));
  return {
    url,
    dbFile,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}

function banner(url: string, dbFile: string): string {
  const app = devApplication();
  const keys = `-H 'X-Svc-Application-Id: ${app.applicationId}' -H 'X-Svc-REST-API-Key: ${app.restApiKey}'`;
  return [
    `svcbase listening on ${url} (SQLite: ${dbFile})`,
    '',
    'Dev application keys:',
    `  applicationId  ${app.applicationId}`,
    `  REST API key   ${app.restApiKey}`,
    `  master key     ${app.masterKey}`,
    `  secret key     ${app.secretKey}`,
    `  security code  ${app.securityCode}`,
    '',
    'Try:',
    `curl -s -X POST ${url}/1/classes/GameScore ${keys} -H 'Content-Type: application/json' -d '{"score":1337,"playerName":"Sean"}'`,
    `curl -s -G ${url}/1/classes/GameScore ${keys} --data-urlencode 'where={"score":{"$gte":1000}}' --data-urlencode 'order=-score'`,
    `curl -s -X POST ${url}/1/requestSmsCode ${keys} -H 'Content-Type: application/json' -d '{"mobilePhoneNumber":"13800138000"}'`,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { url, dbFile, close } = await start();
  print(banner(url, dbFile));
  const stop = () => void close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

export { banner };

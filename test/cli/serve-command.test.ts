import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { banner, start } from '../../src/cli/serve.js';

const dir = mkdtempSync(join(tmpdir(), 'svcbase-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function captured(env: Record<string, string | undefined>) {
  let out = '';
  let err = '';
  return { io: { stdout: { write: (t: string) => (out += t) }, stderr: { write: (t: string) => (err += t) }, env }, out: () => out, err: () => err };
}

describe('the svcbase command', () => {
  it('serve (bin/svcbase.mjs, as npm start and npx run it) listens, answers, and exits 0 on SIGTERM', async () => {
    const child = spawn(process.execPath, ['bin/svcbase.mjs', 'serve', '--port', '0', '--functions', join(dir, 'none')], {
      env: { PATH: process.env.PATH, SVC_DB: join(dir, 'serve.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const found = /svcbase listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
        if (found) resolve(found[1]!);
      });
      child.once('close', () => reject(new Error(`exited before listening: ${output}`)));
    });
    const reply = await fetch(`${url}/1/timestamp`, { headers: { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key' } });
    expect(reply.status).toBe(200);
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('fix 39.10: serve prints its banner first: the functions folder deploys without a request line before it', async () => {
    // The repository's own ./functions (greet.js) is the default folder, as for `npm start`.
    const child = spawn(process.execPath, ['bin/svcbase.mjs', 'serve', '--port', '0'], {
      env: { PATH: process.env.PATH, SVC_DB: join(dir, 'banner.db') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (chunk) => (output += chunk));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        const found = /svcbase listening on (http:\/\/127\.0\.0\.1:\d+)[\s\S]*Admin console/.exec(output);
        if (found) resolve(found[1]!);
      });
      child.once('close', () => reject(new Error(`exited before listening: ${output}`)));
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      expect(output.split('\n')[0]).toMatch(/^svcbase listening on /);
      expect(output).toMatch(/Deployed from the functions folder \(QuickJS sandbox\): \S+\/greet/);
      // A client's request is logged, after the banner.
      await fetch(`${url}/1/timestamp`, { headers: { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-REST-API-Key': 'dev-rest-key' } });
      await expect.poll(() => output, { timeout: 10_000 }).toMatch(/GET \/1\/timestamp 200/);
      expect(output).not.toMatch(/cloudCode/);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it('reads its settings from --config, the environment winning over the file', async () => {
    const db = join(dir, 'config.db');
    const env = { PATH: process.env.PATH, SVC_DB: db, SVC_MASTER_KEY: 'config-master' };
    const server = await start({ port: 0, quiet: true, env, functionsDir: join(dir, 'none') });
    try {
      const created = await fetch(`${server.url}/1/classes/Thing`, { method: 'POST', headers: { 'X-Svc-Application-Id': 'dev-app-id', 'X-Svc-Master-Key': 'config-master', 'content-type': 'application/json' }, body: '{"n":1}' });
      expect(created.status).toBe(201);
    } finally {
      await server.close();
    }
    const config = join(dir, 'svcbase.json');
    writeFileSync(config, JSON.stringify({ SVC_DB: db, SVC_MASTER_KEY: 'config-master', PORT: 4000 }));
    const run = captured({ PATH: process.env.PATH });
    expect(await runCli(['export', '--config', config, '--out', join(dir, 'out'), '--quiet'], run.io)).toBe(0);
    // fix 39.8: the report names the stores it read, not a URL nothing listens on.
    expect(run.out()).toBe(`complete: 1 tables, 1 records copied from this server's stores (SQLite ${db})\n`);
    expect(readFileSync(join(dir, 'out', 'tables', 'Thing.jsonl'), 'utf8')).toMatch(/"n":1/);
    // The environment wins: its SVC_DB names an empty database, so nothing is exported.
    const overridden = captured({ PATH: process.env.PATH, SVC_DB: join(dir, 'empty.db') });
    expect(await runCli(['export', '--config', config, '--out', join(dir, 'out2'), '--quiet'], overridden.io)).toBe(0);
    expect(overridden.out()).toMatch(/^complete: 0 tables/);
    writeFileSync(config, JSON.stringify({ SVC_DB: db, svc_typo: 'x' }));
    const bad = captured({ PATH: process.env.PATH });
    expect(await runCli(['export', '--config', config, '--out', join(dir, 'out3')], bad.io)).toBe(2);
    expect(bad.err()).toMatch(/'svc_typo' is not a setting/);
  });

  it('serves the applications of SVC_EXTRA_APPS beside the dev application, each with its own keys and data, and refuses a malformed value (exit 2)', async () => {
    const extra = { applicationId: 'second-app', restApiKey: 'second-rest', masterKey: 'second-master', secretKey: 'second-secret-01' };
    const env = { PATH: process.env.PATH, SVC_DB: join(dir, 'extra.db'), SVC_EXTRA_APPS: JSON.stringify([extra]) };
    const server = await start({ port: 0, quiet: true, env, functionsDir: join(dir, 'none') });
    const as = (id: string, key: string) => ({ 'X-Svc-Application-Id': id, 'X-Svc-REST-API-Key': key, 'content-type': 'application/json' });
    try {
      const created = await fetch(`${server.url}/1/classes/Thing`, { method: 'POST', headers: as('second-app', 'second-rest'), body: '{"n":2}' });
      expect(created.status).toBe(201);
      // Its own data: the dev application sees none of it; the dev application's keys do not open it.
      const own = await fetch(`${server.url}/1/classes/Thing`, { headers: as('second-app', 'second-rest') });
      expect(((await own.json()) as { results: unknown[] }).results).toHaveLength(1);
      const dev = await fetch(`${server.url}/1/classes/Thing`, { headers: as('dev-app-id', 'dev-rest-key') });
      expect(((await dev.json()) as { results: unknown[] }).results).toHaveLength(0);
      expect((await fetch(`${server.url}/1/classes/Thing`, { headers: as('second-app', 'dev-rest-key') })).status).toBe(401);
      expect(banner(server.url, server.dbFile, [], env)).toMatch(/Also serving \(SVC_EXTRA_APPS\): second-app/);
    } finally {
      await server.close();
    }
    for (const [value, said] of [
      ['{"applicationId":"x"}', /must be a JSON array/],
      ['[{"applicationId":"x","restApiKey":"r"}]', /SVC_EXTRA_APPS\[0\]\.masterKey must be a non-empty string/],
      ['[{"applicationId":"x","restApiKey":"r","masterKey":"m","masterkey":"typo"}]', /'masterkey' is not one of/],
      ['[{', /is not JSON/],
    ] as const) {
      const bad = captured({ PATH: process.env.PATH, SVC_DB: join(dir, 'extra.db'), SVC_EXTRA_APPS: value });
      expect(await runCli(['serve', '--port', '0'], bad.io)).toBe(2);
      expect(bad.err()).toMatch(said);
    }
  });
});

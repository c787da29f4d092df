import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { start } from '../../src/cli/serve.js';

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
});

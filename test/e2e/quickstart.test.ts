import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { banner, devApplication, start } from '../../examples/node-http/server.js';

const exec = promisify(execFile);
const dir = mkdtempSync(join(tmpdir(), 'svcbase-quickstart-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('quick start (examples/node-http)', () => {
  it('answers the three curl lines it prints', async () => {
    const server = await start({ port: 0, dbFile: join(dir, 'curl.db'), quiet: true });
    try {
      const lines = banner(server.url, server.dbFile).split('\n').filter((l) => l.startsWith('curl '));
      expect(lines).toHaveLength(3);
      const outputs = [];
      for (const line of lines) outputs.push(JSON.parse((await exec('bash', ['-c', line])).stdout));
      expect(outputs[0]).toMatchObject({ objectId: expect.any(String), createdAt: expect.any(String) });
      expect(outputs[1].results).toEqual([expect.objectContaining({ objectId: outputs[0].objectId, score: 1337, playerName: 'Sean' })]);
      expect(outputs[2]).toEqual({ smsId: expect.any(Number) });
    } finally {
      await server.close();
    }
  });

  it('keeps every acknowledged write across a restart of the server', async () => {
    const dbFile = join(dir, 'restart.db');
    const app = devApplication();
    const headers = { 'X-Svc-Application-Id': app.applicationId, 'X-Svc-REST-API-Key': app.restApiKey, 'content-type': 'application/json' };
    const first = await start({ port: 0, dbFile, quiet: true });
    const acknowledged: string[] = [];
    try {
      const replies = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          fetch(`${first.url}/1/classes/Durable`, { method: 'POST', headers, body: JSON.stringify({ n: i }) }).then(async (r) => ({ status: r.status, body: (await r.json()) as { objectId: string } })),
        ),
      );
      for (const reply of replies) if (reply.status === 201) acknowledged.push(reply.body.objectId);
      const counter = await fetch(`${first.url}/1/classes/Durable`, { method: 'POST', headers, body: '{"hits":0}' }).then((r) => r.json() as Promise<{ objectId: string }>);
      await Promise.all(
        Array.from({ length: 50 }, () =>
          fetch(`${first.url}/1/classes/Durable/${counter.objectId}`, { method: 'PUT', headers, body: '{"hits":{"__op":"Increment","amount":1}}' }),
        ),
      );
      acknowledged.push(counter.objectId);
    } finally {
      await first.close();
    }
    expect(acknowledged).toHaveLength(101);
    const second = await start({ port: 0, dbFile, quiet: true });
    try {
      const list = (await fetch(`${second.url}/1/classes/Durable?limit=1000&count=1`, { headers }).then((r) => r.json())) as {
        results: Array<{ objectId: string; hits?: number }>;
        count: number;
      };
      expect(list.count).toBe(101);
      expect(new Set(list.results.map((r) => r.objectId))).toEqual(new Set(acknowledged));
      expect(list.results.find((r) => r.objectId === acknowledged.at(-1))?.hits).toBe(50);
    } finally {
      await second.close();
    }
  });
});

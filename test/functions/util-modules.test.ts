import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lineLogger } from '../../src/core/logger.js';
import type { CloudFunction } from '../../src/functions/index.js';
import { convertText } from '../../src/functions/util-modules.js';
import { type TestServer, startTestServer } from '../helpers/server.js';

const definitions: Record<string, CloudFunction> = {
  events: (_request, response, { oEvent }) => {
    oEvent.after('part', 3, (list) => response.send({ parts: list as string[] }));
    for (const part of ['a', 'b', 'c', 'd']) oEvent.emit('part', part);
  },
  gzip: async (request, response, { oGzip }) => {
    const packed = await oGzip.gzip(String(request.body['text']));
    const foreign = await oGzip.ungzip(Buffer.from(String(request.body['packed']), 'base64'));
    const bomb = await oGzip.ungzip(Buffer.from('not gzip')).then(() => 'inflated', (error: { code: number }) => error.code);
    response.send({ roundTrip: (await oGzip.ungzip(packed)).toString(), foreign: foreign.toString(), bomb });
  },
  encode: (_request, response, { oEncodeing }) => {
    let unknown: number | string = 'converted';
    try {
      oEncodeing.convert('x', 'klingon');
    } catch (error) {
      unknown = (error as { code: number }).code;
    }
    const gbk = oEncodeing.convert('中文', 'gbk');
    response.send({
      utf16: [...oEncodeing.convert('hé', 'utf16le')],
      fromLatin1: oEncodeing.convert(Buffer.from([0x68, 0xe9]), 'utf8', 'latin1').toString(),
      latin1: [...oEncodeing.convert('é', 'latin1')],
      fromHex: oEncodeing.convert('68656c6c6f', 'utf8', 'hex').toString(),
      gbk: [...gbk],
      fromGbk: oEncodeing.convert(gbk, 'utf8', 'gbk').toString(),
      big5: oEncodeing.convert(oEncodeing.convert('中文', 'big5'), 'utf8', 'BIG5').toString(),
      unknown,
    });
  },
  logs: (_request, response, { oLog }) => {
    oLog.log('plain line');
    oLog.log({ n: 1 });
    response.send('logged');
  },
};

describe('oEvent, oGzip, oEncodeing and oLog in cloud functions', () => {
  let server: TestServer;
  const lines: string[] = [];
  beforeAll(async () => {
    server = await startTestServer({ captcha: false, logger: lineLogger((line) => lines.push(line)), functions: { definitions } });
  });
  afterAll(() => server.close());
  const run = async (name: string, body: object = {}) => (await server.request('POST', `/1/functions/${name}`, { body })).body.result;

  it('oEvent.after fires once its event was emitted the given number of times', async () => {
    expect(await run('events')).toEqual({ parts: ['a', 'b', 'c'] });
  });

  it('oGzip round-trips, reads what node:zlib wrote, and refuses what is not gzip', async () => {
    const packed = gzipSync('from zlib').toString('base64');
    expect(await run('gzip', { text: 'hello gzip', packed })).toEqual({ roundTrip: 'hello gzip', foreign: 'from zlib', bomb: 11005 });
  });

  it('oEncodeing converts between the charsets Node knows, GBK and Big5 through iconv-lite, and refuses unknown ones', async () => {
    expect(await run('encode')).toEqual({
      utf16: [0x68, 0, 0xe9, 0],
      fromLatin1: 'hé',
      latin1: [0xe9],
      fromHex: 'hello',
      gbk: [0xd6, 0xd0, 0xce, 0xc4],
      fromGbk: '中文',
      big5: '中文',
      unknown: 11005,
    });
  });

  it('oEncodeing without iconv-lite converts Node\'s charsets and names the install for the others', () => {
    expect([...convertText('hé', 'latin1', undefined, undefined)]).toEqual([0x68, 0xe9]);
    expect(() => convertText('中文', 'gbk', undefined, undefined)).toThrow(/npm install iconv-lite/);
  });

  it('oLog writes to the service log, tagged with the application and the function', async () => {
    expect(await run('logs')).toBe('logged');
    const logged = lines.filter((line) => line.includes('cloud function log'));
    expect(logged).toHaveLength(2);
    expect(logged[0]).toContain('"function":"logs"');
    expect(logged[0]).toContain('"message":"plain line"');
    expect(logged[1]).toContain('"message":"{\\"n\\":1}"');
  });
});

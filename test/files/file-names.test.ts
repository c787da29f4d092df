import { describe, expect, it } from 'vitest';
import { checkFileName, extensionOf, keyFromReference, newFileKey } from '../../src/files/file-names.js';
import { dispositionName, requestedRange } from '../../src/files/serve-route.js';
import { isActiveType, sniffType } from '../../src/files/content-type.js';

describe('file names and keys', () => {
  it('refuses dot names, separators, control and bidi characters, lone surrogates, overlong names', () => {
    for (const bad of ['', '.', '..', ' ', 'a/b', 'a\\b', 'x\u0000', 'x\ny', 'x\u007f', '\u202egnp.txt', 'a\ud800b', 'é'.repeat(128)]) {
      expect(() => checkFileName(bad), JSON.stringify(bad)).toThrow(expect.objectContaining({ code: 11143 }));
    }
    for (const good of ['photo.JPG', '中文名.png', "it's (1).txt", 'a'.repeat(255)]) expect(checkFileName(good)).toBe(good);
  });

  it('takes a plain extension only', () => {
    expect(extensionOf('photo.JPG')).toBe('jpg');
    expect(extensionOf('.bashrc')).toBe('');
    expect(extensionOf('a.tar.gz')).toBe('gz');
    expect(extensionOf('a.p/h')).toBe('');
    expect(extensionOf('noext')).toBe('');
  });

  it('keys are namespace/date/hex and references resolve only inside the caller namespace', () => {
    const key = newFileKey('app1', Date.UTC(2026, 0, 2), 'a'.repeat(32), 'png');
    expect(key).toBe(`app1/2026/01/02/${'a'.repeat(32)}.png`);
    const tail = `2026/01/02/${'a'.repeat(32)}.png`;
    expect(keyFromReference('app1', `http://h:1/api/files/app1/${tail}?x=1`)).toBe(key);
    expect(keyFromReference('app2', `http://h:1/files/app1/${tail}`)).toBe(`app2/${tail}`);
    expect(keyFromReference('app1', `/${tail}`)).toBe(key);
    expect(keyFromReference('app1', '../../etc/passwd')).toBeNull();
    expect(keyFromReference('app1', `2026/01/02/${'g'.repeat(32)}.png`)).toBeNull();
  });
});

describe('serving helpers', () => {
  const info = { key: 'k', size: 10, contentType: 'text/plain', filename: 'f', etag: '"e"', lastModified: 0 };
  it('parses single ranges and refuses unsatisfiable ones', () => {
    expect(requestedRange({ range: 'bytes=0-4' }, info)).toEqual({ start: 0, end: 4 });
    expect(requestedRange({ range: 'bytes=5-' }, info)).toEqual({ start: 5, end: 9 });
    expect(requestedRange({ range: 'bytes=-3' }, info)).toEqual({ start: 7, end: 9 });
    expect(requestedRange({ range: 'bytes=8-100' }, info)).toEqual({ start: 8, end: 9 });
    expect(requestedRange({ range: 'bytes=10-' }, info)).toBe('unsatisfiable');
    expect(requestedRange({ range: 'bytes=5-2' }, info)).toBe('unsatisfiable');
    expect(requestedRange({ range: 'items=0-1' }, info)).toBe('unsatisfiable');
    expect(requestedRange({ range: 'bytes=0-1,3-4' }, info)).toBeNull();
    expect(requestedRange({ range: 'bytes=0-1', 'if-range': '"other"' }, info)).toBeNull();
  });

  it('encodes download names so no quote or newline escapes the header', () => {
    expect(dispositionName('a"b\r\n.txt')).toBe(`filename="a_b__.txt"; filename*=UTF-8''a%22b%0D%0A.txt`);
    expect(dispositionName('中.png')).toBe(`filename="_.png"; filename*=UTF-8''%E4%B8%AD.png`);
  });

  it('sniffs markup and magic numbers; active types download', () => {
    expect(sniffType(new TextEncoder().encode('\ufeff  <!DOCTYPE html><p>'))).toBe('text/html');
    expect(sniffType(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg">'))).toBe('image/svg+xml');
    expect(sniffType(new TextEncoder().encode('<?xml version="1.0"?><svg>'))).toBe('application/xml');
    expect(sniffType(new Uint8Array([0xff, 0xd8, 0xff, 0xdb]))).toBe('image/jpeg');
    expect(sniffType(new TextEncoder().encode('hello'))).toBeUndefined();
    for (const t of ['text/html', 'image/svg+xml', 'application/xml', 'text/javascript', 'application/pdf', 'application/octet-stream']) expect(isActiveType(t), t).toBe(true);
    for (const t of ['image/png', 'text/plain; charset=utf-8', 'video/mp4']) expect(isActiveType(t), t).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import { commaList } from '../../src/query/parse/options.js';

describe('commaList', () => {
  it('splits, trims and drops empty items', () => {
    expect(commaList(new URLSearchParams('keys=a, b,,c'), 'keys')).toEqual(['a', 'b', 'c']);
  });

  it('is empty when the parameter is absent or blank', () => {
    expect(commaList(new URLSearchParams('order=score'), 'keys')).toEqual([]);
    expect(commaList(new URLSearchParams('keys=,%20,'), 'keys')).toEqual([]);
  });

  it('reads repeated and bracketed forms, plain ones first', () => {
    expect(commaList(new URLSearchParams('keys[]=x&keys=a,b&keys[]=y,z&keys=c'), 'keys')).toEqual(['a', 'b', 'c', 'x', 'y', 'z']);
    expect(commaList(new URLSearchParams('include[]=p&include[]=q'), 'include')).toEqual(['p', 'q']);
  });
});

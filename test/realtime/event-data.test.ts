import { describe, expect, it } from 'vitest';
import { EventData, FRAMES_KEPT } from '../../src/realtime/event-data.js';

describe('EventData: a change serialised once per view (issue 41)', () => {
  it('writes the JSON text once and hands the same frame to every subscriber asking for it', () => {
    const value = { objectId: 'a1', score: 7, tags: ['x', 'y'], when: { __type: 'Date', iso: '2026-11-28T00:00:00.000Z' } };
    const data = new EventData(value);
    expect(data.json).toBe(JSON.stringify(value));
    expect(data.json).toBe(data.json);
    let built = 0;
    const frame = () => data.frame('sio:updateTable:GameScore', () => `frame ${++built}`);
    expect([frame(), frame(), frame()]).toEqual(['frame 1', 'frame 1', 'frame 1']);
    expect(data.frame('sio:deleteRow:GameScore', () => 'other')).toBe('other');
  });

  it('keeps the first FRAMES_KEPT frames; a frame of any further key is built on each ask (subscription ids are the client\'s choice)', () => {
    const data = new EventData({ objectId: 'a1' });
    let built = 0;
    const frame = (key: string) => data.frame(key, () => `${key} ${++built}`);
    for (let i = 0; i < FRAMES_KEPT; i++) frame(`json:create:${i}`);
    expect(built).toBe(FRAMES_KEPT);
    expect(frame('json:create:0')).toBe('json:create:0 1');
    expect([frame('json:create:extra'), frame('json:create:extra')]).toEqual([`json:create:extra ${FRAMES_KEPT + 1}`, `json:create:extra ${FRAMES_KEPT + 2}`]);
    expect(built).toBe(FRAMES_KEPT + 2);
  });

  it('a frame spliced from the JSON text is the bytes JSON.stringify writes for the whole message', () => {
    const value = { objectId: 'q"\\\u2028', text: 'line\nbreak', n: -0.5 };
    const data = new EventData(value);
    const spliced = `{"op":"event","id":${JSON.stringify('7')},"action":${JSON.stringify('create')},"tableName":${JSON.stringify('T')},"objectId":${JSON.stringify('q"')},"data":${data.json}}`;
    expect(spliced).toBe(JSON.stringify({ op: 'event', id: '7', action: 'create', tableName: 'T', objectId: 'q"', data: value }));
  });
});

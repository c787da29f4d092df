import type { CloudFunction } from '../functions/index.js';

/**
 * The quick start's host-defined cloud functions (docs/functions.md): trusted code in the server's process.
 * `POST /1/functions/hello {"name":"svcbase"}` answers `{"result":"hello svcbase"}`;
 * `GET /<secretKey>/hello?name=svcbase` answers the text itself.
 */
export const quickStartFunctions: Record<string, CloudFunction> = {
  hello(request, response) {
    const name = request.body['name'] ?? request.query['name'] ?? 'world';
    response.send(`hello ${String(name)}`);
  },
  /** Counts visits in a table, as the caller (every rule of /1/classes applies). */
  async visit(_request, response, modules) {
    const saved = await modules.oData.insert({ table: 'Visit', data: { at: new Date().toISOString() } });
    const counted = (await modules.oData.find({ table: 'Visit', limit: 0, count: 1 })) as { count: number };
    response.send({ visit: saved, total: counted.count });
  },
};

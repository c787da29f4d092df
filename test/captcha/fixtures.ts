import { memoryStorage } from '../../src/storage/memory/index.js';
import { memoryCounterStore } from '../../src/counters/index.js';
import { type Application, resolveApplication } from '../../src/app/application.js';
import type { CaptchaRenderer } from '../../src/captcha/renderer.js';
import { FakeClock } from '../../src/core/clock.js';
import { silentLogger } from '../../src/core/logger.js';
import { type Random, seededRandom } from '../../src/core/random.js';
import type { ServiceContext } from '../../src/http/types.js';
import { memoryKvStore } from '../../src/kv/memory-kv.js';

export const appA: Application = resolveApplication({
  applicationId: 'appA',
  restApiKey: 'rest-a',
  masterKey: 'master-a',
  secretKey: 'bc7814ffb203da9f',
});
export const appB: Application = resolveApplication({
  applicationId: 'appB',
  restApiKey: 'rest-b',
  masterKey: 'master-b',
  secretKey: '0348d0c262bc91d9',
});
/** An application configured without a secret key. */
export const appNoSecret: Application = resolveApplication({ applicationId: 'appC', restApiKey: 'rest-c', masterKey: 'master-c' });

/** A renderer that remembers the text of every image (so tests know the answers) and returns fake PNG bytes. */
export function recordingRenderer(): CaptchaRenderer & { texts: string[] } {
  const texts: string[] = [];
  return {
    texts,
    render(text: string, width: number, height: number, random: Random) {
      texts.push(text);
      return new TextEncoder().encode(`png:${text}:${width}x${height}:${random.int(1000)}`);
    },
  };
}

/** A service context over memory stores, a fake clock and seeded randomness. */
export function testContext(seed = 1): ServiceContext & { clock: FakeClock } {
  return {
    storage: memoryStorage(),
    kv: memoryKvStore(),
    counters: memoryCounterStore(),
    clock: new FakeClock(),
    random: seededRandom(seed),
    logger: silentLogger,
    applications: new Map([appA, appB, appNoSecret].map((app) => [app.applicationId, app])),
  };
}

// Runs the official SDK's mini-program login (User.auth) under a minimal shim of the wx APIs:
// wx.login hands out the codes given on the command line, wx.request is fetch, storage is a Map.
// A child process, because the SDK picks its wx transport once, when it is first required.
const { createCipheriv, randomBytes } = require('node:crypto');
const [url, secretKey, securityCode, appId, codesJson] = process.argv.slice(2);
const codes = JSON.parse(codesJson);
const storage = new Map();
const requests = [];
globalThis.wx = {
  login({ success }) {
    success({ code: codes.shift() });
  },
  request({ url: target, method, data, header, success, fail }) {
    const verb = String(method).toUpperCase();
    let full = target;
    let body;
    if (verb === 'GET' || verb === 'DELETE') {
      const query = new URLSearchParams(Object.entries(data || {}).map(([k, v]) => [k, typeof v === 'object' ? JSON.stringify(v) : String(v)])).toString();
      if (query) full += `?${query}`;
    } else body = JSON.stringify(data);
    requests.push(`${verb} ${new URL(full).pathname}`);
    const headers = Object.fromEntries(Object.entries(header).map(([k, v]) => [k, String(v)]));
    fetch(full, { method: verb, headers, body }).then(async (res) => {
      const text = await res.text();
      let parsed = text;
      try {
        parsed = JSON.parse(text);
      } catch {}
      success({ data: parsed, statusCode: res.status, header: {} });
    }, fail);
  },
  getStorageSync: (key) => storage.get(key) ?? '',
  setStorageSync: (key, value) => storage.set(key, value),
  removeStorageSync: (key) => storage.delete(key),
  clearStorageSync: () => storage.clear(),
};
const Bmob = require('hydrogen-js-sdk');

(async () => {
  Bmob.initialize(secretKey, securityCode);
  Bmob.domain(url);
  const first = await Bmob.User.auth();
  const again = await Bmob.User.auth(); // cached: checkSessionKey, no new login
  const sk = Buffer.from(first.authData.weapp.sk, 'base64');
  const iv = randomBytes(16);
  const cipher = createCipheriv('aes-128-cbc', sk, iv);
  const plain = JSON.stringify({ nickName: 'Mini', watermark: { appid: appId, timestamp: 1 } });
  const encryptedData = Buffer.concat([cipher.update(plain), cipher.final()]).toString('base64');
  const decrypted = await Bmob.User.decryption({ encryptedData, iv: iv.toString('base64') });
  process.stdout.write(`\nRESULT ${JSON.stringify({ first, again, decrypted, requests, openid: storage.get("openid") })}\n`);
})().catch((error) => {
  process.stderr.write(JSON.stringify(error) + String(error && error.stack));
  process.exit(1);
});

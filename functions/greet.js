// A cloud function deployed as source: `npm start` deploys every <name>.js of SVC_FUNCTIONS_DIR
// (default ./functions) into the QuickJS sandbox, as `PUT /1/cloudCode/<name>` would.
// Try: curl -s -X POST http://127.0.0.1:3000/1/functions/greet -H 'X-Svc-Application-Id: dev-app-id' \
//        -H 'X-Svc-REST-API-Key: dev-rest-key' -H 'Content-Type: application/json' -d '{"name":"you"}'
function onRequest(request, response, modules) {
  const name = request.body.name || request.query.name || 'world';
  modules.oData.find({ table: 'GameScore', order: '-score', limit: 1 }, function (err, data) {
    if (err) return response.send('hello ' + name);
    const best = JSON.parse(data).results[0];
    console.log('greeted ' + name);
    response.send(best ? 'hello ' + name + ', the best score is ' + best.score : 'hello ' + name);
  });
}

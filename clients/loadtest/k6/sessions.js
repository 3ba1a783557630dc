// Sessions over REST: each iteration creates a two-player Valhalla session with the load-test API
// key (X-Api-Key; its answer carries the RateLimit headers), then plays it with the seat tokens,
// SessionLegalMoves and SessionApplyMove with If-Match (the ETag of the version the move was chosen
// on) and a request id, until the game ends or MAX_PLIES, and deletes it.
//
//   k6 run -e LAWSPEAKER_REST_URL=http://127.0.0.1:8080 -e LAWSPEAKER_API_KEY=lsk_... --vus 2 \
//     --duration 5s sessions.js
import http from 'k6/http';
import { check, fail } from 'k6';
import { API_KEY, MAX_PLIES, REST_URL, THRESHOLDS, pick } from './common.js';

export const options = { thresholds: THRESHOLDS };

function call(method, path, body, headers, name) {
  const params = { headers: { 'Content-Type': 'application/json', ...headers }, tags: { name } };
  const res = http.request(method, REST_URL + path, body === null ? null : JSON.stringify(body), params);
  if (!check(res, { [`${name} 200`]: (r) => r.status === 200 })) {
    fail(`${name} ${path}: ${res.status} ${res.body}`);
  }
  return res;
}

export default function () {
  const key = API_KEY ? { 'X-Api-Key': API_KEY } : {};
  const made = call('POST', '/v1/sessions', { game: 'valhalla', players: 2 }, key, 'CreateSession');
  check(made, {
    'CreateSession has RateLimit-Policy': (r) => /^"create";q=\d+;w=\d+$/.test(r.headers['Ratelimit-Policy'] || ''),
    'CreateSession has RateLimit': (r) => /^"create";r=\d+;t=\d+$/.test(r.headers['Ratelimit'] || ''),
  });
  const created = made.json();
  const id = created.session.session;
  const tokens = {};
  for (const seat of created.seatTokens) tokens[seat.seat || 0] = seat.token;
  let toAct = created.session.toAct || [];
  for (let ply = 0; ply < MAX_PLIES && toAct.length > 0; ply++) {
    const seat = { Authorization: `Bearer ${tokens[toAct[0]]}` };
    const listed = call('POST', `/v1/sessions/${id}:legalMoves`, {}, seat, 'SessionLegalMoves');
    const legal = listed.json();
    check(listed, { 'SessionLegalMoves ETag is its etag': (r) => r.headers['Etag'] === `"${legal.etag}"` });
    if (legal.gameOver) break;
    const moves = legal.moves || [];
    if (!check(moves, { 'SessionLegalMoves lists a move for the seat to act': (m) => m.length > 0 })) break;
    const ifMatch = { ...seat, 'If-Match': listed.headers['Etag'] };
    const body = { move: pick(moves), requestId: `k6-${__VU}-${__ITER}-${ply}` };
    const session = call('POST', `/v1/sessions/${id}:applyMove`, body, ifMatch, 'SessionApplyMove').json('session');
    check(session, { 'SessionApplyMove moves the version on': (s) => s.etag !== legal.etag });
    if (session.gameOver) break;
    toAct = session.toAct || [];
  }
  call('DELETE', `/v1/sessions/${id}`, null, { Authorization: `Bearer ${tokens[0]}` }, 'DeleteSession');
}

// REST stateless play: each iteration plays one game of a random registered game and player count,
// NewGame, then LegalMoves and ApplyMove on the state it holds, until the game ends or MAX_PLIES.
//
//   k6 run -e LAWSPEAKER_REST_URL=http://127.0.0.1:8080 --vus 2 --duration 5s rest_play.js
import http from 'k6/http';
import { check, fail } from 'k6';
import { MAX_PLIES, REST_URL, THRESHOLDS, between, pick } from './common.js';

export const options = { thresholds: THRESHOLDS };

const JSON_BODY = { 'Content-Type': 'application/json' };

function post(path, body, name) {
  const res = http.post(REST_URL + path, JSON.stringify(body), { headers: JSON_BODY, tags: { name } });
  if (!check(res, { [`${name} 200`]: (r) => r.status === 200 })) {
    fail(`${name} ${path}: ${res.status} ${res.body}`);
  }
  return res.json();
}

export function setup() {
  const res = http.get(`${REST_URL}/v1/games`, { tags: { name: 'ListGames' } });
  check(res, { 'ListGames 200': (r) => r.status === 200 });
  const games = res.json('games') || [];
  if (games.length === 0) fail(`ListGames listed no game: ${res.body}`);
  return { games };
}

export default function (data) {
  const info = pick(data.games);
  const game = info.id;
  let state = post(`/v1/games/${game}:new`, { players: between(info.minPlayers, info.maxPlayers) }, 'NewGame').state;
  for (let ply = 0; ply < MAX_PLIES; ply++) {
    const legal = post(`/v1/games/${game}:legalMoves`, { state }, 'LegalMoves');
    if (legal.gameOver) return;
    const moves = legal.moves || [];
    if (!check(moves, { 'LegalMoves lists a move while the game is on': (m) => m.length > 0 })) return;
    const applied = post(`/v1/games/${game}:applyMove`, { state, move: pick(moves) }, 'ApplyMove');
    check(applied, { 'ApplyMove answers a state': (a) => a.state !== undefined });
    state = applied.state;
    if (applied.gameOver) return;
  }
}

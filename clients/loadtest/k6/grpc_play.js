// gRPC stateless play over server reflection (no .proto files): each iteration plays one game of a
// random registered game and player count through RulesService (NewGame, then LegalMoves and
// ApplyMove) until the game ends or MAX_PLIES.
//
//   k6 run -e LAWSPEAKER_GRPC_TARGET=127.0.0.1:50051 --vus 2 --duration 5s grpc_play.js
import grpc from 'k6/net/grpc';
import { check, fail } from 'k6';
import { GRPC_TARGET, MAX_PLIES, THRESHOLDS, between, pick } from './common.js';

export const options = { thresholds: THRESHOLDS };

const client = new grpc.Client();
let games = null;

function invoke(method, request) {
  const res = client.invoke(`lawspeaker.v1.RulesService/${method}`, request);
  if (!check(res, { [`${method} OK`]: (r) => r && r.status === grpc.StatusOK })) {
    fail(`${method}: ${res && res.status} ${res && JSON.stringify(res.error)}`);
  }
  return res.message;
}

export default function () {
  if (games === null) {
    // once per virtual user: the descriptors come from the server's reflection service
    client.connect(GRPC_TARGET, { reflect: true, plaintext: true, timeout: '10s' });
    games = invoke('ListGames', {}).games || [];
    if (games.length === 0) fail('ListGames listed no game');
  }
  const info = pick(games);
  const game = info.id;
  let state = invoke('NewGame', { game, players: between(info.minPlayers, info.maxPlayers) }).state;
  for (let ply = 0; ply < MAX_PLIES; ply++) {
    const legal = invoke('LegalMoves', { game, state });
    if (legal.gameOver) return;
    const moves = legal.moves || [];
    if (!check(moves, { 'LegalMoves lists a move while the game is on': (m) => m.length > 0 })) return;
    const applied = invoke('ApplyMove', { game, state, move: pick(moves) });
    state = applied.state;
    if (applied.gameOver) return;
  }
}

export function teardown() {
  client.close();
}

// Sessions over REST. Each iteration plays one two-player Valhalla game, of three kinds in turn
// (__ITER % 3), each created with the load-test API key (X-Api-Key; its answer carries the RateLimit
// headers):
//
// 0. A game found in the lobby (every VU's first iteration: hosts and guests start together). Odd
//    VUs host it: CreateSession with seat 1 open and the host's display name, then GetSession until
//    a guest has claimed the seat; after HOST_WAIT_SECONDS the host gives the seat a token itself
//    (ManageSeat SEAT_ACTION_REISSUE_TOKEN on the version it saw) and plays both seats. Even VUs are
//    guests: ListSessions (valhalla, 2 players) and ClaimSeat of the oldest open seat this run's
//    hosts listed; a claim that lost the race to another guest is 409 SEAT_NOT_OPEN, and the next
//    is tried, the lobby listed again, for at most GUEST_WAIT_SECONDS. Each plays its own seat and
//    waits for the other's moves with long polls; at MAX_PLIES the seat to act resigns. The guest
//    then asks for a rematch (its vote, and its last call) and the host, once it sees the vote,
//    deletes the session with the host token, so that nobody reads a session that is gone. A lobby
//    call the server's lobby rate refuses (429 LOBBY_RATE_LIMITED) waits its Retry-After and is
//    made again.
// 1. A session played with the seat tokens, SessionLegalMoves and SessionApplyMove with If-Match
//    (the ETag of the version the move was chosen on) and a request id, until the game ends or
//    MAX_PLIES, then deleted.
// 2. The same with a turn clock (a bank with an increment, which the moves spend and refill, and a
//    per-move limit no move here reaches; the server draws its chance steps itself, which the
//    iteration follows with GetSession long polls): when its game has not ended by MAX_PLIES the
//    seat to act resigns (ResignSeat with the etag it saw) and the other seat wins.
//
//   k6 run -e LAWSPEAKER_REST_URL=http://127.0.0.1:8080 -e LAWSPEAKER_API_KEY=lsk_... --vus 2 \
//     --duration 5s sessions.js
import http from 'k6/http';
import { check, fail, sleep } from 'k6';
import { Counter } from 'k6/metrics';
import { API_KEY, MAX_PLIES, REST_URL, THRESHOLDS, pick } from './common.js';

// The tagged thresholds always hold: they put the counts of clocked sessions, resignations and the
// lobby's calls in the summary (--summary-export), where tests/clients/test_k6_loadtest.py reads them.
export const options = {
  thresholds: {
    ...THRESHOLDS,
    'http_reqs{name:CreateSessionWithClock}': ['count>=0'],
    'http_reqs{name:ResignSeat}': ['count>=0'],
    'http_reqs{name:CreateSessionWithOpenSeat}': ['count>=0'],
    'http_reqs{name:ListSessions}': ['count>=0'],
    'http_reqs{name:ClaimSeat}': ['count>=0'],
    'http_reqs{name:ManageSeat}': ['count>=0'],
    'http_reqs{name:Rematch}': ['count>=0'],
    'http_reqs{name:DeleteSession host}': ['count>=0'],
    lobby_games_claimed: ['count>=0'],
    lobby_claims_lost: ['count>=0'],
    lobby_rate_limited: ['count>=0'],
    lobby_host_stood_in: ['count>=0'],
  },
};

// The lobby's outcomes, by count: seats won by a claim, claims that lost the race (SEAT_NOT_OPEN),
// lobby calls the lobby rate refused (and that were made again after Retry-After), and games whose
// host gave the open seat a token itself because no guest came in time.
const claimed = new Counter('lobby_games_claimed');
const lost = new Counter('lobby_claims_lost');
const rateLimited = new Counter('lobby_rate_limited');
const stoodIn = new Counter('lobby_host_stood_in');

const HOST_WAIT_SECONDS = 3; // how long a host waits for a guest before it plays both seats
const GUEST_WAIT_SECONDS = 4; // how long a guest looks for an open seat (listing every 0.1 s)

// A name for this run, on every display name its hosts give: guests claim only this run's seats (a
// server under load may have other lobbies, and people in them). setup() runs once for all VUs.
export function setup() {
  return { run: Math.random().toString(36).slice(2, 10) };
}

// 5 minutes a move, a 10-minute bank and 5 s back after each move; a timeout lets a bot move
const CLOCK = { perMoveSeconds: 300, bankSeconds: 600, incrementSeconds: 5 };

function call(method, path, body, headers, name) {
  const params = { headers: { 'Content-Type': 'application/json', ...headers }, tags: { name } };
  const res = http.request(method, REST_URL + path, body === null ? null : JSON.stringify(body), params);
  if (!check(res, { [`${name} 200`]: (r) => r.status === 200 })) {
    fail(`${name} ${path}: ${res.status} ${res.body}`);
  }
  return res;
}

// In a clocked session the server draws the chance steps itself, just after the version that
// reached them: a view with the game on and no deadline is followed by the draw's version, which
// this waits for with a long poll (GetSession waitForChange).
function settled(id, session, headers) {
  for (let i = 0; i < 200 && !session.gameOver && !session.deadline; i++) {
    const params = { headers, tags: { name: 'GetSession waitForChange' } };
    const res = http.get(`${REST_URL}/v1/sessions/${id}?waitForChange=${session.etag}`, params);
    if (!check(res, { 'GetSession waitForChange 200 or 304': (r) => r.status === 200 || r.status === 304 })) {
      fail(`GetSession ${id}: ${res.status} ${res.body}`);
    }
    if (res.status === 200) session = res.json('session');
  }
  return session;
}

function clockChecks(session) {
  const seats = session.seats || [];
  check(session, {
    'a clocked session shows each seat': () => seats.length === 2,
    'a clocked session shows its deadline and when the version was written': (s) =>
      s.gameOver || (Boolean(s.deadline) && Boolean(s.updateTime) && s.deadline > s.updateTime),
  });
}

export default function (data) {
  const key = API_KEY ? { 'X-Api-Key': API_KEY } : {};
  const kind = __ITER % 3; // a lobby game first: every VU starts with one, hosts and guests at once
  if (kind === 0) {
    if (__VU % 2 === 1) host(data.run, key);
    else guest(data.run, key);
    return;
  }
  const clocked = kind === 2;
  const create = { game: 'valhalla', players: 2, ...(clocked ? { clock: CLOCK } : {}) };
  const made = call('POST', '/v1/sessions', create, key, clocked ? 'CreateSessionWithClock' : 'CreateSession');
  check(made, {
    'CreateSession has RateLimit-Policy': (r) => /^"create";q=\d+;w=\d+$/.test(r.headers['Ratelimit-Policy'] || ''),
    'CreateSession has RateLimit': (r) => /^"create";r=\d+;t=\d+$/.test(r.headers['Ratelimit'] || ''),
  });
  const created = made.json();
  const id = created.session.session;
  const tokens = {};
  for (const seat of created.seatTokens) tokens[seat.seat || 0] = seat.token;
  const watcher = { Authorization: `Bearer ${tokens[0]}` };
  const view = clocked ? settled(id, created.session, watcher) : created.session;
  if (clocked) clockChecks(view);
  let toAct = view.toAct || [];
  let etag = view.etag;
  let over = false;
  for (let ply = 0; ply < MAX_PLIES && toAct.length > 0; ply++) {
    const seat = { Authorization: `Bearer ${tokens[toAct[0]]}` };
    const listed = call('POST', `/v1/sessions/${id}:legalMoves`, {}, seat, 'SessionLegalMoves');
    const legal = listed.json();
    check(listed, { 'SessionLegalMoves ETag is its etag': (r) => r.headers['Etag'] === `"${legal.etag}"` });
    if (legal.gameOver) {
      over = true;
      break;
    }
    const moves = legal.moves || [];
    if (!check(moves, { 'SessionLegalMoves lists a move for the seat to act': (m) => m.length > 0 })) break;
    const ifMatch = { ...seat, 'If-Match': listed.headers['Etag'] };
    const body = { move: pick(moves), requestId: `k6-${__VU}-${__ITER}-${ply}` };
    let session = call('POST', `/v1/sessions/${id}:applyMove`, body, ifMatch, 'SessionApplyMove').json('session');
    check(session, { 'SessionApplyMove moves the version on': (s) => s.etag !== legal.etag });
    if (clocked) {
      session = settled(id, session, watcher);
      clockChecks(session);
    }
    etag = session.etag;
    if (session.gameOver) {
      over = true;
      break;
    }
    toAct = session.toAct || [];
  }
  if (clocked && !over && toAct.length > 0) {
    const loser = toAct[0];
    const seat = { Authorization: `Bearer ${tokens[loser]}` };
    const resigned = call('POST', `/v1/sessions/${id}:resign`, { etag }, seat, 'ResignSeat').json('session');
    check(resigned, {
      'ResignSeat ends a two-player game': (s) => s.result && s.result.reason === 'RESULT_REASON_RESIGNATION',
      'ResignSeat makes the other seat the winner': (s) =>
        s.result && JSON.stringify(s.result.winners || []) === JSON.stringify([1 - loser]),
      'ResignSeat stops the clock': (s) => !s.deadline,
    });
  }
  call('DELETE', `/v1/sessions/${id}`, null, { Authorization: `Bearer ${tokens[0]}` }, 'DeleteSession');
}

// ---------------------------------------------------------------------------------- the lobby

// A lobby call (ListSessions, ClaimSeat): 200, or one of `expected` (the response, for the caller to
// read), or 429 LOBBY_RATE_LIMITED, which waits the Retry-After it names and answers null (make the
// call again). Anything else fails the iteration.
function lobbyCall(method, path, body, headers, name, expected = []) {
  const params = {
    headers: { 'Content-Type': 'application/json', ...headers },
    tags: { name },
    responseCallback: http.expectedStatuses(200, 429, ...expected),
  };
  const res = http.request(method, REST_URL + path, body === null ? null : JSON.stringify(body), params);
  if (res.status === 429) {
    if (!check(res, { [`${name} 429 is the lobby rate`]: (r) => r.json('reason') === 'LOBBY_RATE_LIMITED' })) {
      fail(`${name} ${path}: ${res.status} ${res.body}`);
    }
    rateLimited.add(1);
    sleep(Math.min(parseFloat(res.headers['Retry-After'] || '1') || 1, 10));
    return null;
  }
  if (!check(res, { [`${name} 200`]: (r) => r.status === 200 || expected.includes(r.status) })) {
    fail(`${name} ${path}: ${res.status} ${res.body}`);
  }
  return res;
}

function bearer(token) {
  return { Authorization: `Bearer ${token}` };
}

// The session once it is at another version than `view` (a long poll: GetSession waitForChange,
// which answers 304 after 30 s without a change, then the same view again).
function next(id, view, headers) {
  const params = { headers, tags: { name: 'GetSession waitForChange' } };
  const res = http.get(`${REST_URL}/v1/sessions/${id}?waitForChange=${view.etag}`, params);
  if (!check(res, { 'GetSession waitForChange 200 or 304': (r) => r.status === 200 || r.status === 304 })) {
    fail(`GetSession ${id}: ${res.status} ${res.body}`);
  }
  return res.status === 200 ? res.json('session') : view;
}

// Plays the seats in `tokens` (seat -> token) from `view` on until the game is over: a seat of theirs
// to act moves (or, at MAX_PLIES, resigns); else the other player's move is awaited. The last view.
function playSeats(id, tokens, view) {
  const watcher = bearer(Object.values(tokens)[0]);
  for (let step = 0; step < 4 * MAX_PLIES + 20 && !view.gameOver; step++) {
    const mine = (view.toAct || []).find((s) => tokens[s] !== undefined);
    if (mine === undefined) {
      view = next(id, view, watcher);
      continue;
    }
    const seat = bearer(tokens[mine]);
    if (parseInt(view.moveCount || '0', 10) >= MAX_PLIES) {
      const resigned = call('POST', `/v1/sessions/${id}:resign`, { etag: view.etag }, seat, 'ResignSeat lobby');
      return resigned.json('session');
    }
    const listed = call('POST', `/v1/sessions/${id}:legalMoves`, {}, seat, 'SessionLegalMoves');
    const moves = listed.json('moves') || [];
    if (!check(moves, { 'SessionLegalMoves lists a move for the seat to act': (m) => m.length > 0 })) break;
    const body = { move: pick(moves), requestId: `k6-${__VU}-${__ITER}-${step}` };
    const ifMatch = { ...seat, 'If-Match': listed.headers['Etag'] };
    view = call('POST', `/v1/sessions/${id}:applyMove`, body, ifMatch, 'SessionApplyMove').json('session');
  }
  return view;
}

function host(run, key) {
  const name = `k6 ${run} host ${__VU}`;
  const create = { game: 'valhalla', players: 2, openSeats: [1], displayNames: [name] };
  const created = call('POST', '/v1/sessions', create, key, 'CreateSessionWithOpenSeat').json();
  check(created, {
    'CreateSession with an open seat gives a host token and seat 0 only': (c) =>
      Boolean(c.hostToken) && c.seatTokens.length === 1 && (c.seatTokens[0].seat || 0) === 0,
    'CreateSession with an open seat waits for a player': (c) =>
      c.session.waitingForPlayers === true && c.session.seats[1].role === 'SEAT_ROLE_OPEN',
  });
  const id = created.session.session;
  const hostToken = bearer(created.hostToken);
  const tokens = { 0: created.seatTokens[0].token };
  let view = created.session;
  for (let i = 0; i < HOST_WAIT_SECONDS * 20 && view.waitingForPlayers; i++) {
    sleep(0.05);
    view = call('GET', `/v1/sessions/${id}`, null, hostToken, 'GetSession').json('session');
  }
  let guest = !view.waitingForPlayers;
  if (!guest) {
    // nobody came: the host hands the seat's token to itself, on the version it saw (a claim that
    // came meanwhile makes it 409 SESSION_ETAG_MISMATCH: then the guest plays)
    const body = { seat: 1, action: 'SEAT_ACTION_REISSUE_TOKEN', displayName: `${name} too`, etag: view.etag };
    const res = lobbyCall('POST', `/v1/sessions/${id}:manageSeat`, body, hostToken, 'ManageSeat', [409]);
    if (res.status === 409) {
      check(res, { 'ManageSeat on a claimed seat is stale': (r) => r.json('reason') === 'SESSION_ETAG_MISMATCH' });
      guest = true;
    } else {
      check(res, { 'ManageSeat reissues the seat a token': (r) => (r.json('seatToken.seat') || 0) === 1 });
      tokens[1] = res.json('seatToken.token');
      stoodIn.add(1);
    }
    view = call('GET', `/v1/sessions/${id}`, null, bearer(tokens[0]), 'GetSession').json('session');
  }
  check(view, {
    'a lobby game starts with both seats a person plays': (s) =>
      !s.waitingForPlayers && s.seats.every((seat) => seat.role === 'SEAT_ROLE_PERSON'),
  });
  view = playSeats(id, tokens, view);
  check(view, { 'a lobby game ends': (s) => s.gameOver === true });
  // the guest's rematch vote is its last call: once it is in, nobody reads the session any more
  for (let i = 0; guest && i < 20 && !(view.rematchRequested || []).includes(1); i++) {
    view = next(id, view, hostToken);
  }
  call('DELETE', `/v1/sessions/${id}`, null, hostToken, 'DeleteSession host');
}

// The oldest open seat of this run's hosts in the lobby, claimed: { id, token, view } or null.
function claimSeat(run, key, name) {
  const until = Date.now() + GUEST_WAIT_SECONDS * 1000;
  while (Date.now() < until) {
    const res = lobbyCall('GET', '/v1/sessions?game=valhalla&players=2&pageSize=50', null, key, 'ListSessions');
    if (res === null) continue;
    const listed = res.json('sessions') || [];
    check(listed, {
      'ListSessions lists public views of sessions waiting for players': (l) =>
        l.every((s) => s.waitingForPlayers === true && s.seat === undefined),
    });
    const ours = listed.filter(
      (s) => (s.seats[0].displayName || '').startsWith(`k6 ${run} `) && s.seats[1].role === 'SEAT_ROLE_OPEN',
    );
    for (const session of ours) {
      const body = { displayName: name, seat: 1 };
      const path = `/v1/sessions/${session.session}:claimSeat`;
      const won = lobbyCall('POST', path, body, key, 'ClaimSeat', [409]);
      if (won === null) continue;
      if (won.status === 409) {
        check(won, { 'a claim that lost the race is SEAT_NOT_OPEN': (r) => r.json('reason') === 'SEAT_NOT_OPEN' });
        lost.add(1);
        continue;
      }
      claimed.add(1);
      return { id: session.session, token: won.json('seatToken.token'), view: won.json('session') };
    }
    sleep(0.1);
  }
  return null;
}

function guest(run, key) {
  const name = `k6 ${run} guest ${__VU}`;
  const seat = claimSeat(run, key, name);
  if (seat === null) return; // no host of this run listed a game meanwhile
  check(seat, {
    'ClaimSeat gives seat 1 its token and its view': (s) =>
      Boolean(s.token) && s.view.seat === 1 && s.view.seats[1].displayName === name,
  });
  const view = playSeats(seat.id, { 1: seat.token }, seat.view);
  check(view, { 'a lobby game ends': (s) => s.gameOver === true });
  const voted = call('POST', `/v1/sessions/${seat.id}:rematch`, {}, { ...key, ...bearer(seat.token) }, 'Rematch');
  check(voted, {
    'Rematch records the guest vote and waits for the host': (r) =>
      (r.json('session.rematchRequested') || []).includes(1) && !r.json('rematch'),
  });
}

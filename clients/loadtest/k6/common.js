// What the three k6 scenarios share: where the server is, how long a game may run, the thresholds
// that fail the run on any failed check or HTTP error, and a random pick.
//
// Environment: LAWSPEAKER_REST_URL (http://127.0.0.1:8080), LAWSPEAKER_GRPC_TARGET (127.0.0.1:50051),
// LAWSPEAKER_API_KEY (the load-test key: CreateSession sends it as X-Api-Key), LAWSPEAKER_MAX_PLIES
// (moves per game before the iteration stops playing it, 200).

export const REST_URL = (__ENV.LAWSPEAKER_REST_URL || 'http://127.0.0.1:8080').replace(/\/$/, '');
export const GRPC_TARGET = __ENV.LAWSPEAKER_GRPC_TARGET || '127.0.0.1:50051';
export const API_KEY = __ENV.LAWSPEAKER_API_KEY || '';
export const MAX_PLIES = parseInt(__ENV.LAWSPEAKER_MAX_PLIES || '200', 10);

// Any failed check or HTTP error (status >= 400) fails the run (k6 exits non-zero), and so does a
// run that played no whole iteration.
export const THRESHOLDS = {
  checks: ['rate==1'],
  http_req_failed: ['rate==0'],
  iterations: ['count>0'],
};

export function pick(items) {
  return items[Math.floor(Math.random() * items.length)];
}

export function between(low, high) {
  return low + Math.floor(Math.random() * (high - low + 1));
}

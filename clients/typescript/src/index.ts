/**
 * The Lawspeaker client: RulesService and SessionService over the Connect protocol, on plain
 * HTTP/1.1 `fetch` (browsers, React Native, Node 20+).
 *
 * ```ts
 * const { rules, sessions } = createLawspeakerClients("http://localhost:8080");
 * const { state } = await rules.newGame({ game: "valhalla", players: 2 });
 * ```
 */
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { type CallOptions, type Client, ConnectError, type Interceptor, createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";

import { RulesService } from "./gen/lawspeaker/v1/rules_service_pb.js";
import { SessionService } from "./gen/lawspeaker/v1/session_service_pb.js";

export * from "./gen/lawspeaker/v1/birka_pb.js";
export * from "./gen/lawspeaker/v1/game_pb.js";
export * from "./gen/lawspeaker/v1/pax_penning_pb.js";
export * from "./gen/lawspeaker/v1/pax_viking_junior_pb.js";
export * from "./gen/lawspeaker/v1/penki_pb.js";
export * from "./gen/lawspeaker/v1/rules_service_pb.js";
export * from "./gen/lawspeaker/v1/session_service_pb.js";
export * from "./gen/lawspeaker/v1/valhalla_pb.js";
export { Code, ConnectError } from "@connectrpc/connect";
export { create, fromJson, toJson } from "@bufbuild/protobuf";

export interface LawspeakerClientOptions {
  /**
   * A seat token of a game session (or its host token), sent as `Authorization: Bearer <token>` on
   * every call.
   */
  token?: string;
  /**
   * An API key, sent as `X-Api-Key` on every call, for a service configured with API keys (creating
   * a session then needs one). Keys belong to servers (a lobby, a matchmaker): a key in a browser
   * app is readable by its users.
   */
  apiKey?: string;
  /** Binary protobuf instead of JSON on the wire (smaller, harder to read in devtools). */
  useBinaryFormat?: boolean;
  /** Calls without side effects as cacheable HTTP GET requests. */
  useHttpGet?: boolean;
  /** A fetch implementation, when the global one will not do. */
  fetch?: typeof globalThis.fetch;
  /** Extra Connect interceptors (logging, tracing, ...). */
  interceptors?: Interceptor[];
}

export interface LawspeakerClients {
  /** The stateless rules: every request carries the game state. */
  rules: Client<typeof RulesService>;
  /**
   * Server-held game sessions; a seat acts with its token (see `withToken`), resigns with
   * `resignSeat`. The lobby needs no token: `listSessions` lists the sessions with open seats and
   * `claimSeat` takes one under a display name (its answer holds the seat's token). With the host
   * token `createSession` returned, `manageSeat` reissues a seat's token, hands a seat to a bot,
   * opens or closes it, and `rematch` (also a seat's request, made once every player asked) starts
   * the next game with the same tokens, each player one seat on.
   */
  sessions: Client<typeof SessionService>;
}

/** Clients of both services at `baseUrl` (the HTTP port of `lawspeaker serve`, e.g. http://localhost:8080). */
export function createLawspeakerClients(baseUrl: string, options: LawspeakerClientOptions = {}): LawspeakerClients {
  const interceptors: Interceptor[] = [...(options.interceptors ?? [])];
  const { token, apiKey } = options;
  if (apiKey) {
    interceptors.unshift((next) => (req) => {
      if (!req.header.has("x-api-key")) req.header.set("x-api-key", apiKey);
      return next(req);
    });
  }
  if (token) {
    interceptors.unshift((next) => (req) => {
      if (!req.header.has("authorization")) req.header.set("authorization", `Bearer ${token}`);
      return next(req);
    });
  }
  const transport = createConnectTransport({
    baseUrl,
    useBinaryFormat: options.useBinaryFormat ?? false,
    useHttpGet: options.useHttpGet ?? false,
    interceptors,
    fetch: cancellingStreams(options.fetch),
  });
  return { rules: createClient(RulesService, transport), sessions: createClient(SessionService, transport) };
}

/**
 * `fetch` (the given one, else the global one at call time) whose streamed responses end when their
 * call's signal aborts, as when a `for await` over `watchSession` is left with `break`. Node's fetch
 * (undici) loses the link from a call's signal to its request once the request object has been
 * garbage collected (nodejs/node#55428): the aborted watch then kept its connection, and one of the
 * server's watch streams, open until the server ended it. Cancelling the body here needs no such
 * link. Unary responses are passed through untouched.
 */
function cancellingStreams(given?: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await (given ?? globalThis.fetch)(input, init);
    const signal = init?.signal;
    const streamed = response.headers.get("content-type")?.startsWith("application/connect+") ?? false;
    if (!signal || !response.body || !streamed) return response;
    const reader = response.body.getReader();
    const cancel = () => void reader.cancel(signal.reason).catch(() => undefined);
    if (signal.aborted) cancel();
    else signal.addEventListener("abort", cancel, { once: true });
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const next = await reader.read();
        if (!next.done) return controller.enqueue(next.value);
        signal.removeEventListener("abort", cancel);
        controller.close();
      },
      cancel(reason) {
        signal.removeEventListener("abort", cancel);
        return reader.cancel(reason);
      },
    });
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}

/** Call options that act for the seat of `token` on one call: `sessions.sessionApplyMove(req, withToken(t))`. */
export function withToken(token: string, options: CallOptions = {}): CallOptions {
  const headers = new Headers(options.headers);
  headers.set("authorization", `Bearer ${token}`);
  return { ...options, headers };
}

/** The `google.rpc.ErrorInfo` of a Lawspeaker error: `reason` is the rule (e.g. "CAST_FIRST"). */
export interface ErrorInfo {
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

/** The ErrorInfo a Lawspeaker error carries, or undefined (e.g. for a network error). */
export function errorInfo(err: unknown): ErrorInfo | undefined {
  const e = ConnectError.from(err);
  for (const detail of e.details) {
    if (!("type" in detail) || detail.type !== "google.rpc.ErrorInfo") continue;
    const info: ErrorInfo = { reason: "", domain: "", metadata: {} };
    const reader = new BinaryReader(detail.value);
    while (reader.pos < reader.len) {
      const [field, wireType] = reader.tag();
      if (field === 1) info.reason = reader.string();
      else if (field === 2) info.domain = reader.string();
      else if (field === 3) {
        const entry = new BinaryReader(reader.bytes());
        let key = "";
        let value = "";
        while (entry.pos < entry.len) {
          const [f, w] = entry.tag();
          if (f === 1) key = entry.string();
          else if (f === 2) value = entry.string();
          else entry.skip(w);
        }
        info.metadata[key] = value;
      } else reader.skip(wireType);
    }
    return info;
  }
  return undefined;
}

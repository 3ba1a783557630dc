// The service worker of /play (an installable web app, issue 39): it keeps the app shell (the page,
// its script, stylesheet, manifest and icons) so that the app starts without a network, and it
// never keeps game data: every API call (RulesService, SessionService, REST) goes to the server as
// if there were no worker. build.mjs fills in SHELL (the hashed file names of this build) and
// VERSION (their hash); a new build is a new worker, which drops the shell of the old one.
/* global self, caches, fetch, URL */
const SHELL = __SHELL__;
const VERSION = __VERSION__;
const CACHE = `lawspeaker-shell-${VERSION}`;
const PAGE = "/play";

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(SHELL))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n.startsWith("lawspeaker-shell-") && n !== CACHE).map((n) => caches.delete(n))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return; // the API's calls: the network's, untouched
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (request.mode === "navigate" && (url.pathname === PAGE || url.pathname === `${PAGE}/`)) {
    // the page: the server's when it answers (a new build), the kept one when it does not
    event.respondWith(
      fetch(request).catch(() => caches.open(CACHE).then((cache) => cache.match(PAGE)).then((kept) => kept ?? Response.error())),
    );
    return;
  }
  if (SHELL.includes(url.pathname)) {
    // the hashed files never change: the kept copy, else the network's
    event.respondWith(caches.open(CACHE).then((cache) => cache.match(url.pathname)).then((kept) => kept ?? fetch(request)));
  }
  // anything else (game descriptions, rules pages, the API): not handled here, so never kept
});

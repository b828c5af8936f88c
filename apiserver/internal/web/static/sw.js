// Takhtabush's service worker (served as /sw.js, scope /): the app's
// shell (its stylesheet, script and icons, whose addresses change with
// their content) is served from a cache, and a page that cannot be
// loaded while offline is answered with the offline page. Pages
// themselves are never cached: they are one person's data.
"use strict";

var CACHE = "takhtabush-shell-v2";
var OFFLINE = "/offline";

self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(CACHE).then(function (c) { return c.add(OFFLINE); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k !== CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("fetch", function (e) {
  var req = e.request;
  if (req.method !== "GET") return;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (url.pathname.indexOf("/static/") === 0) {
    e.respondWith(caches.open(CACHE).then(function (c) {
      return c.match(req).then(function (hit) {
        return hit || fetch(req).then(function (res) {
          if (res.ok) c.put(req, res.clone());
          return res;
        });
      });
    }));
    return;
  }
  if (req.mode === "navigate") {
    e.respondWith(fetch(req).catch(function () {
      return caches.match(OFFLINE);
    }));
  }
});

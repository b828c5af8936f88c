// Takhtabush pages: small enhancements on top of forms that work without
// JavaScript. Served from our origin (script-src 'self'); nothing inline.
"use strict";

document.addEventListener("DOMContentLoaded", function () {
  initStudy();
  initCopyButtons();
});

// Study: space or Enter reveals the answer, keys 1-4 rate it, U or
// Ctrl+Z (Cmd+Z) undoes the last rating. The reveal link and the undo
// button work without JavaScript (plain link and form).
function initStudy() {
  var undo = document.querySelector("[data-undo]");
  var study = document.querySelector("[data-study]");
  if (!study && !undo) return;
  var reveal = study && study.querySelector("[data-reveal]");
  var back = study && study.querySelector("[data-back]");
  var ratings = study && study.querySelector("[data-ratings]");
  var started = Date.now();
  var duration = study ? study.querySelectorAll("input[name=durationMs]") : [];

  var edit = document.querySelector("[data-edit]");
  var replay = document.querySelector("[data-replay]");
  if (replay) {
    replay.hidden = false;
    replay.addEventListener("click", function () { playAudio(shown()); });
  }
  var typed = study && document.querySelector("[data-typed]");
  var typeinForm = document.querySelector("[data-typein-form]");
  function shown() { return !ratings || !ratings.hidden; }
  function show() {
    if (!back || !ratings) return;
    if (typed && back) compareTyped(typed.value, back.querySelector(".type-answer"));
    if (typed) typed.readOnly = true;
    if (back) back.hidden = false;
    if (ratings) ratings.hidden = false;
    if (reveal) reveal.hidden = true;
    var keep = document.querySelector("[data-shown]");
    if (keep) keep.value = "1";
    var first = ratings && ratings.querySelector("button[data-rating='3']");
    if (first) first.focus();
  }
  if (reveal && back && ratings && !back.hasAttribute("data-open")) {
    back.hidden = true;
    ratings.hidden = true;
  }
  if (reveal) reveal.addEventListener("click", function (e) { e.preventDefault(); show(); });
  if (typeinForm) {
    // Enter in the typing box shows the answer with the comparison.
    typeinForm.addEventListener("submit", function (e) { e.preventDefault(); show(); });
  }
  if (typed && !shown()) typed.focus();
  // Offline (issue 31 §14): the cards loaded ahead are shown here and
  // each rating is kept on the device until the network is back.
  var ahead = [], offlineMode = false, ratedHere = 0;
  // showLeft counts the cards left, less those rated offline here, and
  // the ratings still waiting on this device.
  function showLeft() {
    var left = document.getElementById("left");
    if (!left || !ratedHere) return;
    var waiting = countQueued(sid);
    left.textContent = Math.max(0, parseInt(study.getAttribute("data-remaining"), 10) - ratedHere) + " left" +
      (waiting ? " · " + waiting + " waiting to be sent" : "");
  }
  document.addEventListener("tb-queued-sent", showLeft);
  // Edit, bury, suspend and mark need the network: hidden without it.
  function network() {
    var actions = document.getElementById("card-actions");
    if (actions) actions.hidden = offlineMode || !navigator.onLine;
  }
  window.addEventListener("online", network);
  window.addEventListener("offline", network);
  var sid = study && study.getAttribute("data-session");
  if (sid && window.fetch && window.localStorage) {
    fetch("/study/" + encodeURIComponent(sid) + "/upcoming", { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (res) { return res.ok ? res.json() : { cards: [] }; })
      .then(function (body) {
        ahead = (body.cards || []).slice(1);
        return Promise.all(ahead.map(inlineImages));
      })
      .then(function () { study.setAttribute("data-ahead", String(ahead.length)); })
      .catch(function () { /* studying goes on online only */ });
  }
  if (study) {
    study.addEventListener("submit", function (e) {
      var ms = Math.min(Date.now() - started, 3600000);
      for (var i = 0; i < duration.length; i++) duration[i].value = String(ms);
      if (navigator.onLine || !sid || !window.localStorage) return;
      var rating = e.submitter && e.submitter.value;
      if (!rating) return;
      e.preventDefault();
      rateOffline(rating, ms);
    });
  }

  // rateOffline keeps the rating of the card shown (with the time it was
  // given) and shows the next card loaded ahead, or says none is left.
  function rateOffline(rating, ms) {
    var card = study.querySelector("input[name=cardId]").value;
    var pos = parseInt(study.querySelector("input[name=position]").value, 10);
    var front = document.getElementById("front");
    var q = queuedReviews();
    q.push({ id: sid + ":" + pos, session: sid, cardId: card, position: pos, rating: rating, durationMs: ms,
      at: Date.now(), front: (front ? front.textContent : "").trim().slice(0, 80) });
    saveQueuedReviews(q);
    offlineMode = true;
    ["card-actions", "undo", "study-keys"].forEach(function (id) {
      var el = document.getElementById(id);
      if (el) (el.closest(".undo-row") || el).hidden = true;
    });
    var next;
    while ((next = ahead.shift()) && q.some(function (r) { return r.id === sid + ":" + next.position; })) { /* rated already */ }
    ratedHere++;
    showLeft();
    offlineNotice();
    if (!next) {
      study.hidden = true;
      if (reveal) reveal.hidden = true;
      var done = document.createElement("div");
      done.className = "panel";
      done.id = "offline-done";
      done.setAttribute("role", "status");
      done.textContent = "That was the last card loaded before the network went. Your ratings are sent when you are back online; then reload this page to go on.";
      study.parentNode.insertBefore(done, study.nextSibling);
      return;
    }
    study.querySelector("input[name=cardId]").value = next.cardId;
    study.querySelector("input[name=position]").value = String(next.position);
    front.innerHTML = next.front;
    back.innerHTML = next.back;
    back.removeAttribute("data-compared");
    var box = study.querySelector(".typein");
    if (box) box.parentNode.removeChild(box);
    typed = null;
    if (next.typeIn) {
      box = document.createElement("div");
      box.className = "typein";
      // form= names no form: Enter shows the answer instead of rating.
      box.innerHTML = '<label for="typed">Type the answer</label><input id="typed" type="text" form="typein-none" autocomplete="off" autocapitalize="off" spellcheck="false">';
      front.parentNode.insertBefore(box, back);
      typed = box.querySelector("input");
      // On the key's release: the answer's Good button, focused by show,
      // must not take the same key press.
      typed.addEventListener("keydown", function (ev) { if (ev.key === "Enter") ev.preventDefault(); });
      typed.addEventListener("keyup", function (ev) { if (ev.key === "Enter" && !shown()) show(); });
    }
    // The intervals the server gave were the first card's: offline, none.
    [].slice.call(ratings.querySelectorAll("[data-next]")).forEach(function (n) {
      if (n.nextSibling && n.nextSibling.nodeType === 3) n.parentNode.removeChild(n.nextSibling);
      n.parentNode.removeChild(n);
    });
    back.hidden = true;
    ratings.hidden = true;
    if (reveal) { reveal.hidden = false; reveal.focus(); }
    if (typed) typed.focus();
    var keep = document.querySelector("[data-shown]");
    if (keep) keep.value = "0";
    started = Date.now();
  }
  document.addEventListener("keydown", function (e) {
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    var key = e.key.toLowerCase();
    if (e.altKey) return;
    if (offlineMode && (key === "u" || key === "z" || key === "e")) return; // those need the network
    if (e.ctrlKey || e.metaKey) {
      if (key === "z" && undo && !e.shiftKey) { e.preventDefault(); undo.click(); }
      return;
    }
    if (key === "u" && undo) {
      e.preventDefault();
      undo.click();
      return;
    }
    if (key === "e" && edit) { e.preventDefault(); edit.click(); return; }
    if (key === "r" && replay) { e.preventDefault(); replay.click(); return; }
    if (!study) return;
    if (e.key === " " || e.key === "Enter") {
      if (!shown()) { e.preventDefault(); show(); }
      return;
    }
    if (/^[1-4]$/.test(e.key) && shown()) {
      var b = study.querySelector("button[data-rating='" + e.key + "']");
      if (b) { e.preventDefault(); b.click(); }
    }
  });
}

// playAudio plays the audio of the card's faces on show (the front's,
// and the back's once the answer is shown) one after another from the
// start, as Anki's replay does.
function playAudio(withBack) {
  var list = [].slice.call(document.querySelectorAll("#front audio" + (withBack ? ", #back audio" : "")));
  document.querySelectorAll("audio").forEach(function (a) { a.pause(); });
  function next(i) {
    if (i >= list.length) return;
    var a = list[i];
    a.currentTime = 0;
    a.onended = function () { a.onended = null; next(i + 1); };
    var p = a.play();
    if (p && p.catch) p.catch(function () { next(i + 1); });
  }
  next(0);
}

// compareTyped shows, in place of the expected answer of a type-in card
// (el, of class type-answer), what was typed against it as Anki does: the
// typed text with its right characters and its wrong ones (struck out),
// then the expected answer with the characters that were missed marked.
// The longest common subsequence of the two decides which is which. An
// empty answer leaves the expected answer as it is.
function compareTyped(typed, el) {
  if (!el || el.getAttribute("data-compared")) return;
  var want = el.textContent.trim();
  var got = typed.trim();
  if (got === "") return;
  el.setAttribute("data-compared", "1");
  var a = Array.from(got).slice(0, 500), b = Array.from(want).slice(0, 500);
  var n = a.length, m = b.length, L = [];
  for (var i = 0; i <= n; i++) { L.push(new Array(m + 1).fill(0)); }
  for (i = n - 1; i >= 0; i--) {
    for (var j = m - 1; j >= 0; j--) {
      L[i][j] = a[i] === b[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
    }
  }
  var inA = new Array(n).fill(false), inB = new Array(m).fill(false);
  for (i = 0, j = 0; i < n && j < m;) {
    if (a[i] === b[j]) { inA[i] = inB[j] = true; i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) i++;
    else j++;
  }
  function line(chars, keep, keptClass, otherClass, label) {
    var out = document.createElement("span");
    out.className = "typed";
    out.setAttribute("aria-label", label + ": " + chars.join(""));
    for (var k = 0; k < chars.length;) {
      var s = document.createElement("span");
      var cls = keep[k] ? keptClass : otherClass, run = "";
      while (k < chars.length && (keep[k] ? keptClass : otherClass) === cls) { run += chars[k]; k++; }
      s.className = cls;
      s.textContent = run;
      out.appendChild(s);
    }
    return out;
  }
  el.textContent = "";
  if (got === want) {
    el.appendChild(line(b, inB, "typed-ok", "typed-ok", "You typed it right"));
    return;
  }
  el.appendChild(line(a, inA, "typed-ok", "typed-bad", "You typed"));
  el.appendChild(line(b, inB, "typed-ok", "typed-miss", "The answer"));
}

// Copy buttons: <button data-copy="#id"> copies that element's text.
function initCopyButtons() {
  var buttons = document.querySelectorAll("button[data-copy]");
  for (var i = 0; i < buttons.length; i++) {
    var b = buttons[i];
    b.hidden = false;
    b.addEventListener("click", function (e) {
      var btn = e.currentTarget;
      var el = document.querySelector(btn.getAttribute("data-copy"));
      if (!el || !navigator.clipboard) return;
      navigator.clipboard.writeText(el.textContent.trim()).then(function () {
        var was = btn.textContent;
        btn.textContent = "Copied";
        setTimeout(function () { btn.textContent = was; }, 1500);
      });
    });
  }
}

// Your day: <button data-browser-tz="#input"> offers the browser's timezone.
document.addEventListener("DOMContentLoaded", function () {
  var b = document.querySelector("button[data-browser-tz]");
  var tz = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (!b || !tz) return;
  b.textContent = "Use this browser's timezone (" + tz + ")";
  b.hidden = false;
  b.addEventListener("click", function () {
    var input = document.querySelector(b.getAttribute("data-browser-tz"));
    if (input) { input.value = tz; input.focus(); }
  });
});

// Sign-in: the confirmation form reports the browser's timezone, which a
// new account adopts (without JavaScript the field stays empty: UTC).
document.addEventListener("DOMContentLoaded", function () {
  var f = document.querySelector("input[data-browser-tz-field]");
  var tz = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (f && tz) f.value = tz;
});

// Import: the chosen file is sent to an upload intent (with the upload's
// progress), then the form posts the upload's id and the job page opens.
document.addEventListener("DOMContentLoaded", function () {
  var form = document.querySelector("form[data-import]");
  if (!form) return;
  var file = form.querySelector("input[type=file]");
  var bar = document.getElementById("import-upload");
  var status = document.getElementById("import-status");
  var button = form.querySelector("button[type=submit]");
  function fail(msg) { status.textContent = msg; button.disabled = false; bar.hidden = true; }
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var f = file.files[0];
    if (!f) return;
    button.disabled = true;
    status.textContent = "Preparing the upload…";
    var csrf = (document.cookie.match(/(?:^|; )tb_csrf=([^;]*)/) || [])[1] || "";
    fetch("/import/upload", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": decodeURIComponent(csrf) },
      body: JSON.stringify({ filename: f.name, bytes: f.size })
    }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error(body.error || "The upload could not be prepared.");
        return body;
      });
    }).then(function (intent) {
      var xhr = new XMLHttpRequest();
      xhr.open(intent.method, intent.uploadUrl);
      Object.keys(intent.headers).forEach(function (k) { xhr.setRequestHeader(k, intent.headers[k]); });
      bar.hidden = false;
      xhr.upload.addEventListener("progress", function (ev) {
        if (ev.lengthComputable) bar.value = Math.round(ev.loaded * 100 / ev.total);
        status.textContent = "Uploading… " + bar.value + "%";
      });
      xhr.addEventListener("load", function () {
        if (xhr.status >= 300) {
          var msg = "The upload failed.";
          try { msg = JSON.parse(xhr.responseText).error.message || msg; } catch (err) { /* keep the general message */ }
          fail(msg);
          return;
        }
        status.textContent = "Uploaded. Starting the import…";
        form.querySelector("input[name=uploadId]").value = intent.mediaId;
        form.submit();
      });
      xhr.addEventListener("error", function () { fail("The upload was interrupted; try again."); });
      xhr.send(f);
    }).catch(function (err) { fail(err.message); });
  });
});

// A running job: the element with data-refresh="S" (and an id) is read
// again from the server every S seconds and updated in place, so nothing
// typed elsewhere on the page is lost (the deck settings form beside an
// optimisation). When the server stops sending data-refresh the job has
// ended: the page reloads to show everything the job changed, unless a
// field on it was edited; then only the element is updated. Without
// fetch, or when the element is gone, the page simply reloads.
document.addEventListener("DOMContentLoaded", function () {
  var el = document.querySelector("[data-refresh]");
  if (el) refreshLater(el);
});

function refreshLater(el) {
  var s = parseFloat(el.getAttribute("data-refresh"));
  if (!(s > 0)) return;
  setTimeout(function () {
    if (!el.id || !window.fetch || !window.DOMParser) { location.reload(); return; }
    fetch(location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } }).then(function (res) {
      if (!res.ok) throw new Error("status " + res.status);
      return res.text();
    }).then(function (html) {
      var next = new DOMParser().parseFromString(html, "text/html").getElementById(el.id);
      if (!next) { location.reload(); return; }
      var running = next.hasAttribute("data-refresh");
      if (!running && !edited()) { location.reload(); return; }
      for (var i = el.attributes.length - 1; i >= 0; i--) el.removeAttribute(el.attributes[i].name);
      for (var j = 0; j < next.attributes.length; j++) el.setAttribute(next.attributes[j].name, next.attributes[j].value);
      el.innerHTML = next.innerHTML;
      if (running) refreshLater(el);
    }).catch(function () { location.reload(); });
  }, s * 1000);
}

// edited reports whether a form field on the page differs from what the
// page was served with.
function edited() {
  var fields = document.querySelectorAll("input, textarea, select");
  for (var i = 0; i < fields.length; i++) {
    var f = fields[i];
    if (f.type === "hidden" || f.type === "submit" || f.type === "button") continue;
    if (f.type === "checkbox" || f.type === "radio") {
      if (f.checked !== f.defaultChecked) return true;
    } else if (f.tagName === "SELECT") {
      for (var k = 0; k < f.options.length; k++) {
        if (f.options[k].selected !== f.options[k].defaultSelected) return true;
      }
    } else if (f.value !== f.defaultValue) {
      return true;
    }
  }
  return false;
}

// The card browser's "choose every card of this page" box: shown only
// when JavaScript runs (each card keeps its own box without it).
document.addEventListener("DOMContentLoaded", function () {
  var all = document.getElementById("select-all");
  if (!all) return;
  var boxes = document.querySelectorAll('#browse input[name="card"]');
  all.hidden = false;
  all.addEventListener("change", function () {
    boxes.forEach(function (b) { b.checked = all.checked; });
  });
});

// The card editor (forms with data-editor): an image or a sound pasted or
// dropped into a field, or picked with "Add an image or sound", goes to
// the media service (upload intent from /editor/upload, then the PUT the
// intent names) and its reference is put where the cursor was;
// Ctrl+Shift+C wraps the selection in the next cloze deletion
// ({{c1::…}}, {{c2::…}}…), Ctrl+Shift+Alt+C in the same one, as Anki's.
document.addEventListener("DOMContentLoaded", function () {
  document.querySelectorAll("form[data-editor]").forEach(initEditor);
});

function initEditor(form) {
  var fields = form.querySelectorAll("textarea");
  if (!fields.length) return;
  var last = fields[0];
  var actions = form.querySelector(".actions");
  var tools = document.createElement("div");
  tools.className = "row";
  var pickId = (form.id || "editor") + "-media";
  var label = document.createElement("label");
  label.htmlFor = pickId;
  label.textContent = "Add an image or sound";
  var pick = document.createElement("input");
  pick.type = "file";
  pick.id = pickId;
  pick.accept = "image/png,image/jpeg,image/gif,image/webp,audio/mpeg,audio/ogg,audio/wav,audio/mp4";
  var status = document.createElement("p");
  status.className = "hint";
  status.setAttribute("role", "status");
  status.setAttribute("data-editor-status", "");
  var box = document.createElement("div");
  box.appendChild(label);
  box.appendChild(pick);
  tools.appendChild(box);
  form.insertBefore(tools, actions);
  form.insertBefore(status, actions);
  var hint = document.createElement("p");
  hint.className = "hint";
  hint.textContent = "Paste or drop an image or a sound into a field; Ctrl+Shift+C makes the selection a cloze deletion.";
  form.insertBefore(hint, actions);

  fields.forEach(function (f) {
    f.addEventListener("focus", function () { last = f; });
    f.addEventListener("paste", function (e) {
      var files = e.clipboardData && e.clipboardData.files;
      if (files && files.length) { e.preventDefault(); last = f; upload(files[0]); }
    });
    f.addEventListener("dragover", function (e) { e.preventDefault(); });
    f.addEventListener("drop", function (e) {
      var files = e.dataTransfer && e.dataTransfer.files;
      if (files && files.length) { e.preventDefault(); last = f; upload(files[0]); }
    });
    f.addEventListener("keydown", function (e) {
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === "c") {
        e.preventDefault();
        cloze(f, e.altKey);
        form.dispatchEvent(new Event("tb-inserted"));
      }
    });
  });
  pick.addEventListener("change", function () {
    if (pick.files[0]) upload(pick.files[0]);
    pick.value = "";
  });
  initPreview(form);

  function insert(text) {
    var f = last, start = f.selectionStart, end = f.selectionEnd;
    f.value = f.value.slice(0, start) + text + f.value.slice(end);
    f.selectionStart = f.selectionEnd = start + text.length;
    f.focus();
    form.dispatchEvent(new Event("tb-inserted"));
  }

  function upload(file) {
    var csrf = (document.cookie.match(/(?:^|; )tb_csrf=([^;]*)/) || [])[1] || "";
    status.textContent = "Uploading " + file.name + "…";
    fetch("/editor/upload", {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": decodeURIComponent(csrf) },
      body: JSON.stringify({ contentType: file.type, bytes: file.size, filename: file.name })
    }).then(function (res) {
      return res.json().then(function (body) {
        if (!res.ok) throw new Error(body.error || "The file could not be sent.");
        return body;
      });
    }).then(function (intent) {
      var h = new Headers();
      Object.keys(intent.headers).forEach(function (k) { h.set(k, intent.headers[k]); });
      return fetch(intent.uploadUrl, { method: intent.method, headers: h, body: file, credentials: "omit" }).then(function (res) {
        if (!res.ok) {
          return res.json().catch(function () { return {}; }).then(function (b) {
            throw new Error((b.error && b.error.message) || "The upload failed.");
          });
        }
        var alt = file.name.replace(/\.[^.]*$/, "").replace(/[\[\]()]/g, " ");
        insert(file.type.indexOf("audio/") === 0
          ? '<audio src="media:' + intent.mediaId + '" controls></audio>'
          : "![" + alt + "](media:" + intent.mediaId + ")");
        status.textContent = file.name + " added.";
      });
    }).catch(function (err) { status.textContent = err.message; });
  }
}

// initPreview shows, under an editor form, the cards it would make as
// they will study (question, then answer), from the server's own
// rendering (POST /editor/preview with the form's fields), again a moment
// after each change.
function initPreview(form) {
  var box = document.createElement("section");
  box.className = "preview";
  box.id = (form.id || "editor") + "-preview";
  box.setAttribute("aria-label", "Preview");
  var title = document.createElement("h2");
  title.className = "small muted";
  title.textContent = "Preview";
  var list = document.createElement("div");
  list.setAttribute("aria-live", "polite");
  list.setAttribute("data-preview", "");
  box.appendChild(title);
  box.appendChild(list);
  form.parentNode.insertBefore(box, form.nextSibling);
  var timer = null, asked = 0;
  var note = /^\/notes\/([^/]+)$/.exec(form.getAttribute("action") || "");
  function refresh() {
    var body = new URLSearchParams(new FormData(form));
    body.delete("csrf_token");
    if (note) body.set("noteId", decodeURIComponent(note[1]));
    var filled = false;
    body.forEach(function (v, k) { if ((k === "front" || /^field-/.test(k)) && v.trim()) filled = true; });
    box.hidden = !filled;
    if (!filled) return;
    var n = ++asked;
    var csrf = (document.cookie.match(/(?:^|; )tb_csrf=([^;]*)/) || [])[1] || "";
    fetch("/editor/preview", {
      method: "POST", credentials: "same-origin", body: body,
      headers: { "Accept": "application/json", "X-CSRF-Token": decodeURIComponent(csrf) }
    }).then(function (res) {
      return res.json().then(function (b) { return { ok: res.ok, body: b }; });
    }).then(function (r) {
      if (n !== asked) return; // a later change asked again
      list.textContent = "";
      if (!r.ok) {
        var p = document.createElement("p");
        p.className = "hint";
        p.textContent = "No preview: " + (r.body.error || "the server did not answer");
        list.appendChild(p);
        return;
      }
      r.body.cards.forEach(function (c, i) {
        var card = document.createElement("div");
        card.className = "panel preview-card";
        card.innerHTML = '<div class="face content"></div><div class="face back content"></div>';
        card.firstChild.innerHTML = c.front;
        card.lastChild.innerHTML = c.back;
        card.setAttribute("aria-label", r.body.cards.length > 1 ? "Card " + (i + 1) : "The card");
        list.appendChild(card);
      });
      if (r.body.total > r.body.cards.length) {
        var more = document.createElement("p");
        more.className = "hint";
        more.textContent = "… and " + plural(r.body.total - r.body.cards.length, "more card");
        list.appendChild(more);
      }
    }).catch(function () { /* no preview offline */ });
  }
  form.addEventListener("input", function () {
    clearTimeout(timer);
    timer = setTimeout(refresh, 300);
  });
  form.addEventListener("tb-inserted", refresh);
  refresh();
}

// cloze wraps f's selection in {{cN::…}}: the next number, or the
// highest one used when same is set.
function cloze(f, same) {
  var n = 0, re = /\{\{c(\d+)::/g, m;
  while ((m = re.exec(f.value)) !== null) n = Math.max(n, parseInt(m[1], 10));
  if (!same || n === 0) n++;
  var start = f.selectionStart, end = f.selectionEnd;
  var open = "{{c" + n + "::";
  f.value = f.value.slice(0, start) + open + f.value.slice(start, end) + "}}" + f.value.slice(end);
  f.selectionStart = start + open.length;
  f.selectionEnd = end + open.length;
}

// The installable app: the service worker keeps the shell and shows the
// offline page when a page cannot load (static/sw.js).
if ("serviceWorker" in navigator) {
  window.addEventListener("load", function () {
    navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () { /* the site works without it */ });
  });
}

// inlineImages fetches the pictures of a card loaded ahead and puts them
// in its text as data: addresses (the pages' CSP allows those for
// images), so the card shows them offline. They stay in the page's
// memory only; a picture over 2 MB, or one that does not come, keeps its
// address.
function inlineImages(card) {
  if (!window.DOMParser || !window.FileReader) return Promise.resolve();
  return Promise.all(["front", "back"].map(function (side) {
    var doc = new DOMParser().parseFromString(card[side], "text/html");
    return Promise.all([].slice.call(doc.querySelectorAll('img[src^="/media/"]')).map(function (img) {
      return fetch(img.getAttribute("src"), { credentials: "same-origin" })
        .then(function (res) { return res.ok ? res.blob() : null; })
        .then(function (blob) {
          if (!blob || blob.size > 2000000 || blob.type.indexOf("image/") !== 0) return;
          return new Promise(function (done) {
            var r = new FileReader();
            r.onloadend = function () {
              if (r.result) {
                img.setAttribute("src", r.result);
                card[side] = doc.body.innerHTML;
              }
              done();
            };
            r.readAsDataURL(blob);
          });
        })
        .catch(function () { /* shown online only */ });
    }));
  }));
}

// Ratings given offline on a study page (issue 31 §14) wait in the
// device's storage, oldest first, each with the time it was given; when
// the network is back (on any page) they are sent in that order, each
// with its age so the server dates it as given, and the page says what
// was sent and what was not applied (the card was reviewed since, the
// session is gone). An answer that does not come keeps the rating for the
// next try; a resend of one that was applied is never applied twice.
var QUEUED_REVIEWS = "tb-queued-reviews";

function queuedReviews() {
  try { return JSON.parse(localStorage.getItem(QUEUED_REVIEWS) || "[]"); } catch (e) { return []; }
}

function saveQueuedReviews(q) {
  try { localStorage.setItem(QUEUED_REVIEWS, JSON.stringify(q)); } catch (e) { /* storage full or off: nothing kept */ }
}

function countQueued(sid) {
  return queuedReviews().filter(function (r) { return !sid || r.session === sid; }).length;
}

function plural(n, word) { return n + " " + word + (n === 1 ? "" : "s"); }

// offlineNotice shows (or updates) the note that ratings wait on this device.
function offlineNotice() {
  var n = countQueued();
  var el = document.getElementById("offline-status");
  if (!n) { if (el) el.hidden = true; return; }
  if (!el) {
    el = document.createElement("div");
    el.id = "offline-status";
    el.className = "notice";
    el.setAttribute("role", "status");
    var main = document.getElementById("main");
    if (!main) return;
    main.insertBefore(el, main.firstChild);
  }
  el.hidden = false;
  el.textContent = !navigator.onLine
    ? "You are offline: " + plural(n, "rating") + " kept on this device, sent with the times they were given when you are back online."
    : sendingQueued ? "Sending " + plural(n, "rating") + " given offline…"
      : plural(n, "rating") + " given offline wait on this device: the server did not take them yet (reload the page to try again).";
  var page = document.getElementById("offline-queued");
  if (page) { page.hidden = false; page.textContent = plural(n, "rating") + " given offline wait on this device."; }
}

var sendingQueued = false;

// sendQueued sends the waiting ratings in order, one at a time.
function sendQueued() {
  if (sendingQueued || !navigator.onLine || !window.fetch || !window.localStorage || !queuedReviews().length) return;
  sendingQueued = true;
  offlineNotice();
  var sent = 0, refused = [];
  var csrf = decodeURIComponent((document.cookie.match(/(?:^|; )tb_csrf=([^;]*)/) || [])[1] || "");
  function finish(stopped) {
    sendingQueued = false;
    offlineNotice();
    document.dispatchEvent(new Event("tb-queued-sent"));
    reportQueued(sent, refused, stopped);
  }
  function next() {
    var r = queuedReviews()[0];
    if (!r) { finish(false); return; }
    var body = new URLSearchParams({ cardId: r.cardId, position: String(r.position), rating: r.rating,
      durationMs: String(r.durationMs || 0), agoMs: String(Math.max(0, Date.now() - r.at)) });
    fetch("/study/" + encodeURIComponent(r.session) + "/queued", {
      method: "POST", credentials: "same-origin", redirect: "manual", body: body,
      headers: { "Accept": "application/json", "X-CSRF-Token": csrf }
    }).then(function (res) {
      return res.json().catch(function () { return null; }).then(function (b) {
        var applied = res.ok && b && (b.status === "applied" || b.status === "replayed");
        var final = !res.ok && b && b.kind && res.status >= 400 && res.status < 500 && res.status !== 401 && res.status !== 403 && res.status !== 429;
        if (!applied && !final) throw new Error("not now");
        if (applied) sent++; else refused.push({ front: r.front, error: b.error });
        saveQueuedReviews(queuedReviews().filter(function (x) { return x.id !== r.id; }));
        next();
      });
    }).catch(function () { finish(true); });
  }
  next();
}

// reportQueued tells the person what became of the ratings sent.
function reportQueued(sent, refused, stopped) {
  if (!sent && !refused.length) return;
  var main = document.getElementById("main");
  if (!main) return;
  var el = document.getElementById("offline-report");
  if (!el) {
    el = document.createElement("div");
    el.id = "offline-report";
    main.insertBefore(el, main.firstChild);
  }
  el.className = refused.length ? "notice" : "flash";
  el.setAttribute("role", refused.length ? "alert" : "status");
  el.textContent = "";
  var p = document.createElement("p");
  p.textContent = sent ? "Back online: " + plural(sent, "rating") + " given offline " + (sent === 1 ? "was" : "were") + " sent, with the times " + (sent === 1 ? "it was" : "they were") + " given." : "Back online.";
  el.appendChild(p);
  if (refused.length) {
    p = document.createElement("p");
    p.textContent = plural(refused.length, "rating") + " could not be applied, and " + (refused.length === 1 ? "was" : "were") + " dropped:";
    el.appendChild(p);
    var ul = document.createElement("ul");
    refused.forEach(function (r) {
      var li = document.createElement("li");
      li.textContent = "“" + (r.front || "a card") + "”: " + (r.error || "refused");
      ul.appendChild(li);
    });
    el.appendChild(ul);
  }
  if (stopped) {
    p = document.createElement("p");
    p.textContent = "The rest wait on this device for the next try.";
    el.appendChild(p);
  }
}

document.addEventListener("DOMContentLoaded", function () {
  if (!window.localStorage) return;
  offlineNotice();
  sendQueued();
  window.addEventListener("online", sendQueued);
  window.addEventListener("offline", offlineNotice);
});

// Flags while studying (issue 31 §12): Shift+1…7 sets the current card's
// flag, or takes it off when the card has that flag already (Ctrl+digit
// switches the browser's tabs); the form says whether the answer shows,
// so the page comes back as it was.
(function () {
  var form = document.querySelector("[data-flag-form]");
  if (!form) return;
  var select = form.querySelector("select[name=flag]");
  var shownInput = form.querySelector("input[name=shown]");
  form.addEventListener("submit", function () {
    var ratings = document.querySelector("[data-ratings]");
    shownInput.value = ratings && !ratings.hidden ? "1" : "0";
  });
  document.addEventListener("keydown", function (e) {
    if (!e.shiftKey || e.ctrlKey || e.metaKey || e.altKey || !/^Digit[1-7]$/.test(e.code)) return;
    var t = e.target;
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT" || t.isContentEditable)) return;
    if (!navigator.onLine || form.closest("[hidden]")) return; // offline: the card shown may not be the form's
    e.preventDefault();
    var n = e.code.slice(5);
    select.value = select.getAttribute("data-flag") === n ? "0" : n;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });
})();

// airlock approval console. Plain JavaScript, no dependencies. Every value
// that comes from the server is put on the page with text nodes (never
// innerHTML), and every string of an approval's arguments goes through
// visible(), which mirrors internal/visible: invisible, bidirectional and
// control characters are shown as escapes.
"use strict";

(function () {
  const state = { csrf: "", tenant: "", role: "", timer: 0, route: "" };
  const POLL_MS = 2000;
  // LINGER_POLLS is how many polls a card stays once its request is no
  // longer pending.
  const LINGER_POLLS = 15;

  // ---- DOM helpers -------------------------------------------------------

  // el builds an element: attrs are set as attributes (or, for "on*", as
  // listeners); children are nodes or strings (as text nodes).
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue;
      if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
      else if (k === "text") e.textContent = v;
      else e.setAttribute(k, v === true ? "" : String(v));
    }
    for (const c of children.flat(Infinity)) {
      if (c === undefined || c === null || c === false) continue;
      e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
    }
    return e;
  }
  const $ = (id) => document.getElementById(id);
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

  // ---- visible text (mirror of internal/visible) -------------------------

  const escapeRe = /^(?:[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}\p{Variation_Selector}]|[\u3164\u115F\u1160\uFFA0\u2800\uFFFD\u27E8\u27E9])$/u;
  const spaceRe = /^\p{Zs}$/u;

  function needsEscape(ch) {
    if (ch === " ") return false;
    return escapeRe.test(ch) || spaceRe.test(ch);
  }
  function escapeOf(ch) {
    const cp = ch.codePointAt(0);
    const hex = cp.toString(16).toUpperCase();
    return cp > 0xffff ? "\\U" + hex.padStart(8, "0") : "\\u" + hex.padStart(4, "0");
  }

  // visible returns nodes that show s: ordinary characters as text, every
  // character that could hide or reorder text as a marked escape, runs of
  // 8 or more spaces or of one escaped character as a count.
  function visible(s) {
    const out = [];
    let text = "";
    const flush = () => { if (text) { out.push(document.createTextNode(text)); text = ""; } };
    const mark = (t, title) => { flush(); out.push(el("span", { class: "esc", title: title }, t)); };
    const chars = Array.from(s);
    for (let i = 0; i < chars.length;) {
      const ch = chars[i];
      let n = 1;
      while (i + n < chars.length && chars[i + n] === ch) n++;
      if (ch === " " && n >= 8) { mark("⟨" + n + " spaces⟩", "a run of spaces"); i += n; continue; }
      if (needsEscape(ch)) {
        if (n >= 8) { mark("⟨" + n + " × " + escapeOf(ch) + "⟩", "a run of an invisible character"); i += n; continue; }
        for (let j = 0; j < n; j++) mark(escapeOf(ch), "invisible or control character " + escapeOf(ch));
        i += n; continue;
      }
      for (let j = 0; j < n; j++) text += ch;
      i += n;
    }
    flush();
    return out;
  }

  // ---- JSON: parse keeping number literals, render pretty ----------------

  // parseJSON parses text into a tree that keeps each number's literal
  // text and each object's keys in order (duplicates included), so that
  // what is shown is what the bytes say.
  function parseJSON(text) {
    let i = 0;
    const ws = () => { while (i < text.length && " \t\n\r".includes(text[i])) i++; };
    function value() {
      ws();
      const c = text[i];
      if (c === "{") {
        i++; const entries = []; ws();
        if (text[i] === "}") { i++; return { t: "obj", entries }; }
        for (;;) {
          ws(); const k = str(); ws();
          if (text[i++] !== ":") throw new Error("expected :");
          entries.push([k, value()]); ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i] === "}") { i++; return { t: "obj", entries }; }
          throw new Error("expected , or }");
        }
      }
      if (c === "[") {
        i++; const items = []; ws();
        if (text[i] === "]") { i++; return { t: "arr", items }; }
        for (;;) {
          items.push(value()); ws();
          if (text[i] === ",") { i++; continue; }
          if (text[i] === "]") { i++; return { t: "arr", items }; }
          throw new Error("expected , or ]");
        }
      }
      if (c === '"') return { t: "str", v: str() };
      const m = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/.exec(text.slice(i, i + 400));
      if (!m) throw new Error("unexpected character");
      i += m[0].length;
      return { t: /^[-\d]/.test(m[0]) ? "num" : "lit", raw: m[0] };
    }
    function str() {
      if (text[i] !== '"') throw new Error("expected string");
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1));
      i = j + 1;
      return s;
    }
    const v = value(); ws();
    if (i !== text.length) throw new Error("trailing data");
    return v;
  }

  const COLLAPSE_CHARS = 400, COLLAPSE_ITEMS = 20;

  // renderJSON renders a parsed tree, one member per line; long strings
  // and large objects and arrays can be folded (open at first, their size
  // said when folded).
  function renderJSON(node) {
    if (node.t === "str") {
      const body = [el("span", { class: "s" }, '"', visible(node.v), '"')];
      if (Array.from(node.v).length <= COLLAPSE_CHARS) return body[0];
      return el("details", { open: true }, el("summary", {}, "string, " + Array.from(node.v).length + " characters"), body[0]);
    }
    if (node.t === "num") return el("span", { class: "n" }, node.raw);
    if (node.t === "lit") return el("span", { class: "n" }, node.raw);
    const isObj = node.t === "obj";
    const kids = isObj ? node.entries : node.items;
    const [open, close] = isObj ? ["{", "}"] : ["[", "]"];
    if (kids.length === 0) return document.createTextNode(open + close);
    const lines = kids.map((kid, n) => {
      const comma = n < kids.length - 1 ? "," : "";
      if (isObj) return el("div", { class: "line" }, el("span", { class: "k" }, '"', visible(kid[0]), '"'), ": ", renderJSON(kid[1]), comma);
      return el("div", { class: "line" }, renderJSON(kid), comma);
    });
    const inner = el("span", {}, open, lines, close);
    if (kids.length <= COLLAPSE_ITEMS) return inner;
    return el("details", { open: true }, el("summary", {}, (isObj ? "object, " : "array, ") + kids.length + (isObj ? " members" : " items")), inner);
  }

  // ---- the API -----------------------------------------------------------

  async function call(method, path, body) {
    const headers = {};
    if (method !== "GET") headers["X-CSRF-Token"] = state.csrf;
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let res;
    try {
      res = await fetch(path, { method, headers, credentials: "same-origin", body: body === undefined ? undefined : JSON.stringify(body) });
    } catch (e) {
      return { status: 0, data: { error: { reason: "network", message: "the server could not be reached" } } };
    }
    let data = null, raw = "";
    if (res.status !== 204) { try { raw = await res.text(); data = JSON.parse(raw); } catch (e) { data = null; } }
    if (res.status === 401 && path !== "/ui/session") { showSignIn("Your session ended; sign in again."); }
    return { status: res.status, data, raw };
  }
  const api = (method, path, body) => call(method, "/ui/api/v1" + path, body);
  function errText(r) {
    const e = r.data && r.data.error;
    return e ? e.message + " (" + e.reason + ")" : "HTTP " + r.status;
  }

  // ---- sign-in -----------------------------------------------------------

  function showSignIn(msg) {
    stop();
    state.csrf = "";
    state.route = "";
    $("nav").hidden = true;
    $("view").hidden = true;
    clear($("view"));
    $("signin").hidden = false;
    $("signin-error").textContent = msg || "";
    $("signin-key").focus();
  }

  async function signIn(ev) {
    ev.preventDefault();
    const key = $("signin-key").value;
    $("signin-submit").disabled = true;
    const r = await call("POST", "/ui/session", { key });
    $("signin-submit").disabled = false;
    $("signin-key").value = "";
    if (r.status !== 200) { $("signin-error").textContent = errText(r); return; }
    started(r.data);
  }

  function started(s) {
    state.csrf = s.csrf_token; state.tenant = s.tenant; state.role = s.role;
    $("signin").hidden = true;
    $("nav").hidden = false;
    $("view").hidden = false;
    $("who").textContent = "tenant " + s.tenant + " · role " + s.role;
    if (!location.hash || location.hash === "#") location.hash = "#/approvals";
    else route();
  }

  async function signOut() {
    await call("DELETE", "/ui/session");
    showSignIn("Signed out.");
  }

  // ---- routing -----------------------------------------------------------

  function stop() { if (state.timer) { clearTimeout(state.timer); state.timer = 0; } }
  function every(fn) {
    const tick = async () => {
      state.timer = 0;
      const route = state.route;
      await fn();
      // Poll on while the page is the same and the session lives.
      if (state.csrf && state.route === route && !state.timer) state.timer = setTimeout(tick, POLL_MS);
    };
    tick();
  }

  function route() {
    if (!state.csrf) return;
    stop();
    const h = location.hash.replace(/^#/, "");
    state.route = h + ":" + Date.now();
    const view = $("view");
    clear(view);
    for (const a of document.querySelectorAll("nav a")) a.removeAttribute("aria-current");
    let m;
    if ((m = /^\/chains\/([A-Za-z0-9_-]{1,100})$/.exec(h))) {
      $("nav-chains").setAttribute("aria-current", "page");
      chainPage(view, m[1]);
    } else if (h === "/chains") {
      $("nav-chains").setAttribute("aria-current", "page");
      chainsPage(view);
    } else {
      $("nav-approvals").setAttribute("aria-current", "page");
      approvalsPage(view);
    }
  }

  // ---- approvals ---------------------------------------------------------

  function approvalsPage(view) {
    const list = el("div", { id: "approvals", "aria-live": "polite" });
    const status = el("p", { class: "note", id: "approvals-status" });
    const callsList = el("div", { id: "caller-calls", "aria-live": "polite" });
    const callsStatus = el("p", { class: "note", id: "caller-calls-status" });
    view.append(el("h1", {}, "Pending approvals"), status, list,
      el("h2", { id: "caller-calls-head" }, "Calls waiting for their callers"),
      el("p", { class: "note" }, "A caller tool is run by the program that submitted the chain, which answers its calls (POST /v1/calls/{id}); nothing is decided here."),
      callsStatus, callsList);
    const cards = new Map();
    every(async () => {
      const rc = await api("GET", "/calls");
      if (rc.status !== 200) callsStatus.textContent = errText(rc);
      else showCalls(callsList, callsStatus, rc);
      const r = await api("GET", "/approvals");
      if (r.status !== 200) { status.textContent = errText(r); return; }
      const reqs = (r.data.approvals || []).slice().sort((a, b) => (Date.parse(b.created) || 0) - (Date.parse(a.created) || 0));
      $("pending-count").textContent = reqs.length ? String(reqs.length) : "";
      status.textContent = reqs.length ? "" : "No approval is waiting. This page updates by itself.";
      // A request no longer pending stays a while, saying so: decided
      // here (its card says how), or elsewhere, or its wait ended.
      const ids = new Set(reqs.map((q) => q.id));
      for (const [id, card] of cards) {
        if (ids.has(id)) continue;
        if (!card.classList.contains("decided")) {
          card.classList.add("decided");
          for (const b of card.querySelectorAll("button")) b.disabled = true;
          const msg = card.querySelector(".decision-msg");
          msg.className = "msg decision-msg bad gone";
          msg.textContent = "No longer pending: decided elsewhere, or its wait ended, or its chain ended.";
        }
        card.dataset.stale = String(Number(card.dataset.stale || 0) + 1);
        if (Number(card.dataset.stale) > LINGER_POLLS) { card.remove(); cards.delete(id); }
      }
      // Newest first. A card already in place is not moved: moving it
      // would take the focus from its buttons.
      let prev = null;
      for (const q of reqs) {
        let card = cards.get(q.id);
        if (!card) { card = approvalCard(q); cards.set(q.id, card); }
        else if (card.dataset.context === "failed") card.reload();
        const want = prev ? prev.nextSibling : list.firstChild;
        if (want !== card) list.insertBefore(card, want);
        prev = card;
      }
    });
  }

  // showCalls lays out the calls of caller tools waiting for their
  // answers: what each was called with, read-only.
  function showCalls(list, status, r) {
    const calls = (r.data && r.data.calls) || [];
    const tree = member(r.raw, "calls");
    status.textContent = calls.length ? "" : "No call is waiting for its caller.";
    clear(list);
    calls.forEach((c, i) => list.append(callCard(c, tree && tree.t === "arr" ? tree.items[i] : null)));
  }

  function callCard(c, node) {
    const hit = node && node.t === "obj" ? node.entries.find((e) => e[0] === "args") : null;
    let laid = null;
    if (hit) { try { laid = renderJSON(hit[1]); } catch (e) { laid = null; } }
    return el("article", { class: "card caller-call", "data-id": c.id, "aria-label": "call of caller tool " + c.tool },
      el("div", { class: "card-head" }, el("h2", {}, visible(c.tool)), el("span", { class: "risk" }, "caller tool")),
      el("dl", { class: "facts" },
        el("dt", {}, "Chain"), el("dd", {}, el("a", { href: "#/chains/" + encodeURIComponent(c.chain_id), class: "mono" }, visible(c.chain_id))),
        el("dt", {}, "Call"), el("dd", {}, "#" + c.seq),
        el("dt", {}, "Args hash"), el("dd", { class: "mono args-hash" }, visible(c.args_hash)),
        el("dt", {}, "Requested"), el("dd", {}, when(c.created)),
        el("dt", {}, "Answer by"), el("dd", {}, when(c.deadline))),
      el("h3", {}, "Arguments"),
      laid ? el("div", { class: "json args" }, laid) : el("p", { class: "empty" }, "not shown (" + c.args_size + " bytes)"));
  }

  function approvalCard(q) {
    const card = el("article", { class: "card approval", "data-id": q.id, "aria-label": "approval of " + q.tool });
    const details = el("div", { class: "context" }, el("p", { class: "note" }, "Loading the request…"));
    const msg = el("p", { class: "msg decision-msg", role: "status" });
    // The buttons wait for the arguments to be on the card: a decision is
    // bound to the args hash of what the card shows (shown), never to one
    // the person has not seen.
    const approve = el("button", { type: "button", class: "approve", disabled: true }, "Approve");
    const deny = el("button", { type: "button", class: "deny", disabled: true }, "Deny");
    let shown = "";
    const decide = async (decision) => {
      if (!shown) return;
      approve.disabled = deny.disabled = true;
      const r = await api("POST", "/approvals/" + encodeURIComponent(q.id), { decision, args_hash: shown });
      if (r.status === 200) {
        msg.className = "msg decision-msg ok";
        msg.textContent = (decision === "approve" ? "Approved" : "Denied") + ": the chain goes on.";
        card.classList.add("decided");
        return;
      }
      msg.className = "msg decision-msg bad";
      msg.textContent = explain(r);
      const reason = r.data && r.data.error && r.data.error.reason;
      if (reason === "args_mismatch") approve.disabled = deny.disabled = false;
      else card.classList.add("decided");
    };
    approve.addEventListener("click", () => decide("approve"));
    deny.addEventListener("click", () => decide("deny"));
    card.append(
      el("div", { class: "card-head" }, el("h2", {}, visible(q.tool)), el("span", { class: "risk risk-" + q.risk }, q.risk)),
      details,
      el("div", { class: "actions" }, approve, deny),
      msg,
    );
    const load = async () => {
      card.dataset.context = "loading";
      shown = await loadContext(q, details);
      card.dataset.context = shown ? "shown" : "failed";
      if (shown && !card.classList.contains("decided")) approve.disabled = deny.disabled = false;
    };
    card.reload = load;
    load();
    return card;
  }

  // explain says what became of a decision that was not taken.
  function explain(r) {
    const e = (r.data && r.data.error) || {};
    switch (e.reason) {
      case "args_mismatch": return "Not decided: the arguments are not the ones shown (args_mismatch). The request is still pending.";
      case "already_decided": return "Nothing changed: the request was already " + (e.decision || "decided") + " (already_decided).";
      case "approval_expired": return "Too late: " + e.message + " (approval_expired).";
      case "approval_not_found": return "This request is gone: its chain ended or another tenant's key was used (approval_not_found).";
      case "forbidden_role": return "This key may not decide approvals (forbidden_role).";
      default: return "Not decided: " + errText(r);
    }
  }

  // loadContext fills box with request q's context and returns the args
  // hash of the arguments it shows; "" when it shows none (the buttons stay
  // disabled, and the next poll tries again).
  async function loadContext(q, box) {
    const r = await api("GET", "/approvals/" + encodeURIComponent(q.id) + "/context");
    clear(box);
    if (r.status !== 200 || !r.data || !r.data.request) {
      box.append(el("p", { class: "error" }, "The request's arguments could not be loaded, so it cannot be decided here yet: " + errText(r)));
      return "";
    }
    const c = r.data, req = c.request;
    if (req.id !== q.id || req.args_hash !== q.args_hash) {
      box.append(el("p", { class: "error" }, "The request's arguments changed while loading; it cannot be decided here."));
      return "";
    }
    const why = c.gate
      ? ["gate ", el("code", {}, c.gate), c.rule ? [" by rule ", el("code", {}, visible(c.rule))] : "", c.decision_id ? [" (decision ", el("code", {}, c.decision_id), ")"] : ""]
      : ["risk ", el("code", {}, req.risk), " is above what the chain may run unapproved"];
    box.append(el("dl", { class: "facts" },
      el("dt", {}, "Why"), el("dd", { class: "why" }, why),
      el("dt", {}, "Tool"), el("dd", {}, c.description ? visible(c.description) : el("span", { class: "empty" }, "no description")),
      el("dt", {}, "Chain"), el("dd", {}, el("a", { href: "#/chains/" + encodeURIComponent(req.session_id), class: "mono" }, req.session_id)),
      el("dt", {}, "Called at"), el("dd", { class: "call-site" }, siteText(req)),
      el("dt", {}, "Args hash"), el("dd", { class: "mono args-hash" }, req.args_hash),
      el("dt", {}, "Size"), el("dd", {}, req.args_size + " bytes"),
      el("dt", {}, "Requested"), el("dd", {}, when(req.created)),
      req.expires ? [el("dt", {}, "Expires"), el("dd", {}, when(req.expires))] : "",
    ));
    box.append(el("h3", {}, "Arguments"));
    const args = member(r.raw, "request", "args");
    let laid = null, seen = false;
    if (args) {
      try { laid = renderJSON(args); } catch (e) { laid = null; }
    }
    if (laid) {
      box.append(el("div", { class: "json args" }, laid));
      seen = true;
    } else if (req.args && req.args_text) {
      // Too deep to lay out here: the server's rendering (internal/visible), whole.
      box.append(el("p", { class: "note" }, "The arguments nest too deeply to lay out; their exact text:"),
        el("pre", { class: "json args" }, req.args_text));
      seen = true;
    } else if (req.args_preview) {
      box.append(el("p", { class: "note" }, "The arguments are " + req.args_size + " bytes; the first part is shown, the whole is in a download:"),
        el("div", { class: "json args" }, visible(req.args_preview), el("span", { class: "esc" }, "⟨" + (req.args_size - new TextEncoder().encode(req.args_preview).length) + " more bytes not shown⟩")),
        el("a", { href: "/ui/api/v1/artifacts/" + encodeURIComponent(req.args_ref), download: "" }, "Download the whole arguments"));
      seen = true;
    }
    if (!seen) box.append(el("p", { class: "error" }, "The request carries no arguments to show; it cannot be decided here."));
    if (req.args_text) {
      // args_text is already made visible by the server (internal/visible):
      // shown as it is, as text.
      box.append(el("details", {}, el("summary", {}, "Exact canonical text (as the server renders it)"), el("pre", { class: "args-text" }, req.args_text)));
    }
    box.append(el("h3", {}, "Calls so far"));
    const calls = c.calls || [];
    if (!calls.length) box.append(el("p", { class: "empty" }, "none"));
    else box.append(callsTable(calls));
    if (c.script) {
      const line = req.line > 0 ? req.line : 0;
      box.append(el("details", { class: "script-box", open: line > 0 },
        el("summary", {}, line > 0 ? "Script (the call is on line " + line + ")" : "Script (the line that made the call is not known)"),
        scriptBlock(c.script, line)));
    } else {
      box.append(el("p", { class: "empty" }, "The chain's script is not available (a module, or a parked chain's script too large to keep)."));
    }
    return seen ? req.args_hash : "";
  }

  // member returns the tree of the value at keys in the JSON text raw
  // (parsed with parseJSON, so numbers keep their literal text where
  // JSON.parse would round them), or null.
  function member(raw, ...keys) {
    let node;
    try { node = parseJSON(raw); } catch (e) { return null; }
    for (const k of keys) {
      if (!node || node.t !== "obj") return null;
      const hit = node.entries.find((e) => e[0] === k);
      node = hit ? hit[1] : null;
    }
    return node;
  }

  function callsTable(calls) {
    return el("table", { class: "calls" },
      el("thead", {}, el("tr", {}, el("th", {}, "#"), el("th", {}, "tool"), el("th", {}, "status"), el("th", {}, "reason"))),
      el("tbody", {}, calls.map((k) => el("tr", {}, el("td", {}, String(k.seq)), el("td", {}, visible(k.tool)),
        el("td", { class: "status status-" + k.status }, k.status), el("td", {}, visible(k.reason || ""))))));
  }

  // siteText says where in the script the call was made.
  function siteText(req) {
    if (!(req.line > 0)) return el("span", { class: "empty" }, "not known");
    return "line " + req.line + (req.column > 0 ? ", column " + req.column : "");
  }

  // scriptBlock shows a script with line numbers, marking line (1-based),
  // the one that made the call; 0 marks none.
  function scriptBlock(src, line) {
    return el("pre", { class: "script" }, src.split("\n").map((text, i) => i + 1 === line
      ? el("span", { class: "ln hl", "aria-current": "true", title: "this line made the call" }, visible(text))
      : el("span", { class: "ln" }, visible(text))));
  }

  function when(t) {
    if (!t) return "";
    const d = new Date(t);
    return isNaN(d) ? t : d.toLocaleString();
  }

  // ---- chains ------------------------------------------------------------

  const STATUSES = ["", "running", "waiting_approval", "parked", "ok", "error", "timeout", "cancelled", "limit_exceeded", "interrupted"];

  function chainsPage(view) {
    const sel = el("select", { id: "chain-status-filter" }, STATUSES.map((s) => el("option", { value: s }, s || "any")));
    const text = el("input", { id: "chain-id-filter", type: "search", placeholder: "part of an id", spellcheck: "false" });
    const body = el("tbody", {});
    const note = el("p", { class: "note" });
    view.append(el("h1", {}, "Chains"),
      el("div", { class: "filters" },
        el("div", {}, el("label", { for: "chain-status-filter" }, "Status"), sel),
        el("div", {}, el("label", { for: "chain-id-filter" }, "Id"), text)),
      note,
      el("table", { class: "chains" }, el("thead", {}, el("tr", {}, el("th", {}, "chain"), el("th", {}, "status"), el("th", {}, "created"), el("th", {}, "finished"))), body));
    let last = null;
    const draw = () => {
      clear(body);
      const f = text.value.trim();
      const rows = (last || []).filter((c) => !f || c.id.includes(f));
      note.textContent = rows.length ? "" : "No chain matches.";
      for (const c of rows) {
        body.append(el("tr", { "data-id": c.id },
          el("td", {}, el("a", { href: "#/chains/" + encodeURIComponent(c.id), class: "mono" }, c.id)),
          el("td", { class: "status status-" + c.status }, c.status, visible(c.reason ? " (" + c.reason + ")" : "") + (c.pending ? " · " + c.pending + " pending" : "")),
          el("td", {}, when(c.created)), el("td", {}, when(c.finished))));
      }
    };
    const load = async () => {
      const q = sel.value ? "?status=" + encodeURIComponent(sel.value) : "";
      const r = await api("GET", "/chains" + q);
      if (r.status !== 200) { note.textContent = errText(r); return; }
      const next = r.data.chains || [];
      // Redraw only on a change, so the focus stays on a row's link.
      if (JSON.stringify(next) === JSON.stringify(last)) return;
      last = next;
      draw();
    };
    sel.addEventListener("change", load);
    text.addEventListener("input", draw);
    every(load);
  }

  const FINAL = new Set(["ok", "error", "timeout", "cancelled", "limit_exceeded", "interrupted"]);

  function chainPage(view, id) {
    const box = el("div", { id: "chain" });
    view.append(el("h1", {}, "Chain ", el("span", { class: "mono" }, id)), box);
    let shown = "";
    every(async () => {
      const r = await api("GET", "/chains/" + encodeURIComponent(id));
      if (r.status !== 200) { clear(box); box.append(el("p", { class: "error" }, errText(r))); return; }
      const v = r.data;
      const sig = JSON.stringify([v.status, v.finished, (v.pending || []).length, v.result && v.result.trace && v.result.trace.length]);
      if (sig === shown) return;
      shown = sig;
      clear(box);
      renderChain(box, v, r.raw);
      if (FINAL.has(v.status)) stop();
    });
  }

  function renderChain(box, v, raw) {
    const res = v.result || {};
    const msg = el("p", { class: "msg", role: "status" });
    box.append(el("dl", { class: "facts" },
      el("dt", {}, "Status"), el("dd", { id: "chain-status", class: "status status-" + v.status }, v.status, visible(res.reason ? " (" + res.reason + ")" : "")),
      el("dt", {}, "Language"), el("dd", {}, v.language),
      el("dt", {}, "Created"), el("dd", {}, when(v.created)),
      v.finished ? [el("dt", {}, "Finished"), el("dd", {}, when(v.finished))] : "",
    ));
    if (!FINAL.has(v.status) && state.role === "all") {
      const cancel = el("button", { type: "button", class: "cancel", id: "chain-cancel" }, "Cancel chain");
      cancel.addEventListener("click", async () => {
        cancel.disabled = true;
        const r = await api("DELETE", "/chains/" + encodeURIComponent(v.id));
        msg.className = "msg " + (r.status < 300 ? "ok" : "bad");
        msg.textContent = r.status < 300 ? "Cancelling." : "Not cancelled: " + errText(r);
        cancel.disabled = r.status < 300;
      });
      box.append(el("div", { class: "actions" }, cancel), msg);
    }
    if (v.pending && v.pending.length) {
      box.append(el("h2", {}, "Waiting for"), el("ul", {}, v.pending.map((p) => p.kind === "call"
        ? el("li", {}, visible(p.tool), p.line > 0 ? " (line " + p.line + ")" : "", " — the answer of its caller (a caller tool: POST /v1/calls/", visible(p.id), ")")
        : p.kind === "credential"
          ? el("li", {}, visible(p.tool), p.line > 0 ? " (line " + p.line + ")" : "", " — a fresh delegated credential for its user (", visible(p.rule || ""), "): the submitter sends one with POST /v1/chains/", visible(v.id), "/identity")
          : el("li", {}, visible(p.tool), p.line > 0 ? " (line " + p.line + ")" : "", " — ", el("a", { href: "#/approvals" }, "decide")))));
    }
    if (res.error) box.append(el("h2", {}, "Error"), el("pre", { class: "error" }, visible(res.error + (res.line ? " (line " + res.line + (res.column ? ":" + res.column : "") + ")" : ""))));
    const value = member(raw, "result", "value");
    if (value && FINAL.has(v.status)) {
      let laid;
      try { laid = renderJSON(value); } catch (e) { laid = el("p", { class: "note" }, "The result nests too deeply to lay out here: read it with GET /v1/chains/", visible(v.id), "."); }
      box.append(el("h2", {}, "Result"), el("div", { class: "json result" }, laid));
    }
    const logs = res.logs || [];
    box.append(el("h2", {}, "Logs"), logs.length
      ? el("pre", { class: "logs" }, logs.map((l) => el("div", {}, el("span", { class: "note" }, (l.level || "log") + " "), visible(l.text || ""))))
      : el("p", { class: "empty" }, "none"));
    if (res.logs_truncated) box.append(el("p", { class: "note" }, "The logs were cut at the limit."));
    const trace = res.trace || [];
    box.append(el("h2", {}, "Trace"), trace.length ? callsTable(trace) : el("p", { class: "empty" }, "no call yet"));
    const arts = res.artifacts || [];
    box.append(el("h2", {}, "Artifacts"), arts.length
      ? el("ul", {}, arts.map((a) => el("li", {}, el("a", { href: "/ui/api/v1/artifacts/" + encodeURIComponent(a.ref), download: "" }, visible(a.ref)), " ", visible(a.mime || "") + (a.size !== undefined ? ", " + a.size + " bytes" : ""))))
      : el("p", { class: "empty" }, "none"));
  }

  // ---- start -------------------------------------------------------------

  document.addEventListener("DOMContentLoaded", async () => {
    $("signin-form").addEventListener("submit", signIn);
    $("signout").addEventListener("click", signOut);
    window.addEventListener("hashchange", route);
    const r = await call("GET", "/ui/session");
    if (r.status === 200) started(r.data);
    else showSignIn("");
  });
})();

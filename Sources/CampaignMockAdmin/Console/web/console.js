// campaign-mock console: everything it shows comes from the admin API (/_mock/…) and the event stream
// (/_mock/stream). No framework, no build step, no request leaves this server.
"use strict";

const state = { token: sessionStorage.getItem("campaign-mock-token") || "", info: null, apps: [], source: null,
  pushDevice: null, drawer: null, loadImage: false };
const $ = (selector, root = document) => root.querySelector(selector);
const $$ = (selector, root = document) => [...root.querySelectorAll(selector)];

// ---------------------------------------------------------------------------------------------- helpers

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "dataset") Object.assign(node.dataset, value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child !== undefined && child !== null) node.append(child instanceof Node ? child : document.createTextNode(child));
  }
  return node;
}

function time(iso) {
  return iso ? iso.replace("T", " ").replace("Z", "").slice(11, 23) : "";
}

class Unauthorized extends Error {}

async function api(path, options = {}) {
  // Campaign-Mock-Client: the routes that run xcrun or adb want it (a page elsewhere cannot send it).
  const headers = Object.assign({ Accept: "application/json", "Campaign-Mock-Client": "console" }, options.headers || {});
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  if (options.body !== undefined && typeof options.body !== "string") {
    options = Object.assign({}, options, { body: JSON.stringify(options.body) });
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) throw new Unauthorized("the admin token is missing or wrong");
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw Object.assign(new Error((data && data.error) || `${response.status}`), { status: response.status, data });
  return data;
}

async function copy(text, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const area = element("textarea", {}, text);
    document.body.append(area);
    area.select();
    document.execCommand("copy");
    area.remove();
  }
  if (button) {
    const label = button.textContent;
    button.textContent = "Copied";
    setTimeout(() => (button.textContent = label), 1200);
  }
}

function download(name, text, type = "application/json") {
  const link = element("a", { href: URL.createObjectURL(new Blob([text], { type })), download: name });
  document.body.append(link);
  link.click();
  link.remove();
}

/** A card's heading: its title (text or nodes, kept within the card) and, on the right, its actions. */
function cardHeading(title, ...actions) {
  return element("h4", {}, element("span", { class: "title" }, title), actions.length ? element("span", {}, actions) : null);
}

function codeBlock(title, text, fileName) {
  const copyButton = element("button", { type: "button", class: "small", onclick: () => copy(text, copyButton) }, "Copy");
  const actions = [copyButton];
  if (fileName) actions.push(element("button", { type: "button", class: "small", onclick: () => download(fileName, text) }, "Download"));
  return element("div", { class: "payload" }, cardHeading(title, ...actions), element("pre", {}, text));
}

/** A registration token as a heading shows it: a long one (APNs: 64 hex digits, FCM: about 160 characters)
 * shortened to its ends, whole on hover, copied on click. */
function tokenChip(token) {
  if (token.length <= 20) return token;
  const chip = element("button", { type: "button", class: "token", title: `${token}\n(click to copy)`, "aria-label": `Copy token ${token}`,
    dataset: { testid: "token-chip", token }, onclick: () => copy(token, chip) }, `${token.slice(0, 8)}…${token.slice(-6)}`);
  return chip;
}

/** XML with one element per line, indented; the text itself is left as it is. */
function prettyXML(xml) {
  let depth = 0;
  return xml.replace(/>\s*</g, ">\n<").split("\n").map((line) => {
    if (/^<\//.test(line)) depth = Math.max(0, depth - 1);
    const out = "  ".repeat(depth) + line;
    if (/^<[^!?/][^>]*[^/]>$/.test(line) && !/<\/[^>]+>$/.test(line)) depth += 1;
    return out;
  }).join("\n");
}

function prettyBody(body, headers) {
  const type = ((headers || []).find(([name]) => name.toLowerCase() === "content-type") || [])[1] || "";
  if (!body) return "(no body)";
  if (type.includes("x-www-form-urlencoded") || /^[\w.-]+=[^&]*(&[\w.-]+=[^&]*)*$/.test(body)) {
    return body.split("&").map((pair) => {
      const [name, ...rest] = pair.split("=");
      let value = rest.join("=");
      try { value = decodeURIComponent(value.replace(/\+/g, " ")); } catch { /* kept as sent */ }
      return `${decodeURIComponent(name)} = ${value.trim().startsWith("<") ? "\n" + prettyXML(value) : value}`;
    }).join("\n");
  }
  if (body.trim().startsWith("<")) return prettyXML(body);
  try { return JSON.stringify(JSON.parse(body), null, 2); } catch { return body; }
}

const number = (value) => Number(value || 0).toLocaleString("en-US");

/** `_mId` as the SDK got it when the hit is linked to a push composed here; else the hex as sent, with its
 * two readings (unsigned, and signed 32-bit as a v7 server issues negative ids). */
function messageLabel(event) {
  const linked = event.linked || {};
  if (linked.messageId) return `_mId ${linked.messageId}`;
  if (event.messageUuid) return event.messageUuid;
  const value = Number(event.messageValue);
  const signed = value >= 2 ** 31 && value < 2 ** 32 ? ` / ${value - 2 ** 32}` : "";
  return `h${event.messageHex} (${event.messageValue}${signed})`;
}

function appName(key) {
  return (state.apps.find((app) => app.integrationKey === key) || {}).name || key;
}

// ---------------------------------------------------------------------------------------------- lists

/**
 * A list of the admin API, newest first: a page from the API ("50 of 13,042"), more on demand by cursor,
 * and live items from the event stream, queued and drawn at most once per animation frame.
 */
class List {
  constructor(name, { path, key, row, query, matches, empty, max = 500 }) {
    Object.assign(this, { name, path, key, row, query, matches, empty, max });
    this.body = $(`#${name}`);
    this.items = new Map();
    this.total = 0;
    this.cursor = null;
    this.pending = [];
    this.frame = 0;
    this.generation = 0;
    $(`#${name}-more`).addEventListener("click", () => this.more());
  }

  url(extra = "") {
    const params = new URLSearchParams(this.query());
    for (const [name, value] of [...params]) if (!value) params.delete(name);
    return `${this.path}?${params}${params.toString() ? "&" : ""}limit=100${extra}`;
  }

  async load() {
    const generation = ++this.generation;
    const page = await api(this.url());
    if (generation !== this.generation) return;  // a newer search started meanwhile
    this.items = new Map();
    this.pending = [];
    this.total = page.total;
    this.cursor = page.nextCursor ?? null;
    const rows = page[this.name].map((item) => this.remember(item));
    this.body.replaceChildren(...rows);
    this.counts();
  }

  async more() {
    if (this.cursor === null) return;
    const page = await api(this.url(`&before=${this.cursor}`));
    this.cursor = page.nextCursor ?? null;
    this.body.append(...page[this.name].filter((item) => !this.items.has(this.key(item))).map((item) => this.remember(item)));
    this.counts();
  }

  remember(item) {
    const node = this.row(item);
    this.items.set(this.key(item), { item, node });
    if (state.drawer && state.drawer.key === `${this.name}:${this.key(item)}`) node.setAttribute("aria-selected", "true");
    return node;
  }

  /** Queues an item from the stream; `isNew` says whether it adds to the total (a device seen again does not). */
  live(item, isNew = true) {
    if (!this.matches(item)) return;
    this.pending.push({ item, isNew });
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  flush() {
    this.frame = 0;
    const batch = this.pending;
    this.pending = [];
    const rows = [];
    for (const { item, isNew } of batch.reverse()) {  // newest first
      const key = this.key(item);
      const known = this.items.get(key);
      if (known) {
        if (rows.some((row) => row === known.node)) continue;  // a newer copy is in this batch already
        known.node.remove();
      } else if (isNew) {
        this.total += 1;
      }
      const node = this.remember(item);
      node.classList.add("fresh");
      rows.push(node);
    }
    this.body.prepend(...rows);
    while (this.body.children.length > this.max && this.body.lastChild) {
      const last = this.body.lastChild;
      for (const [key, entry] of this.items) if (entry.node === last) { this.items.delete(key); break; }
      last.remove();
    }
    this.counts();
  }

  counts() {
    const shown = this.body.children.length;
    $(`#${this.name}-shown`).textContent = `${number(shown)} of ${number(this.total)}`;
    // The tab counts everything; a filtered list leaves it as it was.
    if (!Object.values(this.query()).some(Boolean)) $(`#nav-${this.name}`).textContent = this.total ? number(this.total) : "";
    $(`#${this.name}-more`).hidden = this.cursor === null || shown >= this.total;
    const empty = $(`#${this.name}-empty`);
    empty.hidden = shown > 0;
    if (!empty.hidden) empty.replaceChildren(...this.empty());
  }
}

function selectable(row, key, open) {
  row.setAttribute("tabindex", "0");
  row.setAttribute("aria-selected", "false");
  row.dataset.key = key;
  row.addEventListener("click", open);
  row.addEventListener("keydown", (event) => { if (event.key === "Enter") open(); });
  return row;
}

function deviceKey(device) {
  return `${device.application.integrationKey}\u0000${device.registrationToken}`;
}

// "iOS 17.4" of osName "iOS" and osVersion "iOS 17.4" (the AEP extension names the OS in the version) or "17.4".
function osLabel(name, version) {
  if (!name) return version || "";
  if (!version) return name;
  return version.toLowerCase().startsWith(name.toLowerCase()) ? version : `${name} ${version}`;
}

function deviceRow(device) {
  const fields = device.device || {};
  const model = [fields.deviceModel, osLabel(fields.osName, fields.osVersion)].filter(Boolean).join(" · ");
  return selectable(element("tr", { "data-testid": "device-row", dataset: { token: device.registrationToken } },
    element("td", {}, device.application.name), element("td", { class: "narrow-hide" }, device.application.platform),
    element("td", {}, element("code", {}, device.registrationToken),
      device.trusted ? [" ", element("span", { class: "badge trusted", "data-testid": "device-trusted", title: "Trusted for sending on this machine" }, "trusted")] : null),
    element("td", {}, device.userKey || ""),
    element("td", { class: "narrow-hide" }, model),
    element("td", { class: "narrow-hide" }, (device.params || []).map((param) => `${param.name}=${param.value}`).join(", ")),
    element("td", {}, time(device.updatedAt))), `devices:${deviceKey(device)}`, () => openDevice(device));
}

function eventRow(event) {
  const linked = event.linked || {};
  return element("tr", { "data-testid": "event-row", dataset: { deliveryId: event.deliveryId } },
    element("td", {}, time(event.receivedAt)), element("td", {}, element("span", { class: `badge ${event.type}` }, event.type)),
    element("td", {}, element("code", {}, messageLabel(event))), element("td", {}, event.deliveryId),
    element("td", { class: "narrow-hide" }, linked.registrationToken ? element("a", { href: urls.device(linked.registrationToken, linked.integrationKey), onclick: (click) => {
      click.preventDefault();
      openDevice({ registrationToken: linked.registrationToken, application: { integrationKey: linked.integrationKey } });
    } }, linked.registrationToken) : element("span", { class: "muted" }, "no push composed here")));
}

function requestRow(entry) {
  const bad = entry.status >= 400 || entry.status === 0;
  return selectable(element("tr", { "data-testid": "request-row" },
    element("td", {}, time(entry.receivedAt)), element("td", { class: "narrow-hide" }, entry.method),
    element("td", {}, element("code", {}, entry.target)),
    element("td", {}, element("span", { class: bad ? "badge bad" : "badge" }, String(entry.status))),
    element("td", { class: "narrow-hide" }, entry.reason || ""), element("td", { class: "narrow-hide" }, entry.durationMs.toFixed(2))),
  `requests:${entry.id}`, () => openRequest(entry.id));
}

function includesText(values, search) {
  const needle = search.trim().toLowerCase();
  return !needle || values.some((value) => String(value ?? "").toLowerCase().includes(needle));
}

function pointTheAppHint() {
  const info = state.info || { baseURL: "" };
  const ios = state.apps.find((app) => app.platform === "ios");
  const android = state.apps.find((app) => app.platform === "android");
  return [element("strong", {}, "No device yet. "), "Point the app's marketing and tracking hosts at ",
    element("code", {}, info.baseURL), " (", element("code", {}, "http://10.0.2.2:" + new URL(info.baseURL || "http://x:8080").port),
    " from the Android emulator) with the integration key ", element("code", {}, ios ? ios.integrationKey : "…"), " or ",
    element("code", {}, android ? android.integrationKey : "…"), ". The ", element("a", { href: "#overview" }, "Overview"),
    " has the SDK configuration to paste."];
}

const lists = {
  devices: new List("devices", {
    path: "/_mock/devices", key: deviceKey, row: deviceRow,
    query: () => ({ q: $("#device-search").value.trim() }),
    matches: (device) => includesText([device.registrationToken, device.userKey, device.application.integrationKey,
      device.application.name, ...Object.values(device.device || {}), ...(device.params || []).map((p) => `${p.name}=${p.value}`)],
    $("#device-search").value),
    empty: () => ($("#device-search").value.trim() ? ["No device matches this search."] : pointTheAppHint()),
  }),
  events: new List("events", {
    path: "/_mock/events", key: (event) => String(event.id), row: eventRow,
    query: () => ({ type: $("#event-type").value, messageId: $("#event-message").value.trim() }),
    matches: (event) => (!$("#event-type").value || event.type === $("#event-type").value)
      && includesText([event.messageHex, event.messageValue, event.messageUuid, (event.linked || {}).messageId], $("#event-message").value),
    empty: () => ["No tracking event yet. The SDK sends one when the app reports a push received (",
      element("code", {}, "/r/?id=…,1"), ") or opened (", element("code", {}, ",2"), "). Compose a push in ",
      element("a", { href: "#push" }, "Push"), " and use Simulate receive / open to see one without a device."],
  }),
  requests: new List("requests", {
    path: "/_mock/requests", key: (entry) => String(entry.id), row: requestRow,
    query: () => ({ endpoint: $("#request-endpoint").value, status: $("#request-status").value.trim(), app: $("#request-app").value.trim() }),
    matches: (entry) => (!$("#request-endpoint").value || entry.endpoint === $("#request-endpoint").value)
      && (!$("#request-status").value.trim() || String(entry.status) === $("#request-status").value.trim())
      && (!$("#request-app").value.trim() || entry.appKey === $("#request-app").value.trim()),
    empty: () => ["No request matches. Every request the SDKs and back ends send outside ", element("code", {}, "/_mock/"),
      " is listed here with its answer, the refused ones too."],
  }),
};

/** Reloads a list after its search or filters changed, at most every 250 ms while typing. */
function searchAs(input, list) {
  let timer = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => list.load().catch(showFailure), 250);
  });
}

function showFailure(failure) {
  if (failure instanceof Unauthorized) askForToken(failure.message);
}

// ---------------------------------------------------------------------------------------------- the drawer

function openDrawer(key, title, render, url) {
  if (url && location.hash !== url) history.pushState(null, "", url);
  for (const row of $$("tbody tr[aria-selected=true]")) row.setAttribute("aria-selected", "false");
  for (const row of $$("tbody tr[data-key]")) if (row.dataset.key === key) row.setAttribute("aria-selected", "true");
  state.drawer = { key, title, render };
  $("#drawer-title").textContent = title;
  $("#drawer").hidden = false;
  return refreshDrawer();
}

async function refreshDrawer() {
  const drawer = state.drawer;
  if (!drawer) return;
  try {
    const content = await drawer.render();
    if (state.drawer === drawer) $("#drawer-body").replaceChildren(...content);
  } catch (failure) {
    if (state.drawer === drawer) $("#drawer-body").replaceChildren(element("p", { class: "error" }, failure.message));
  }
}

/** Closes the drawer, and goes to the URL of the view under it (back opens the item again). */
function closeDrawer() {
  const view = location.hash.slice(1).split("/")[0];
  if (location.hash.includes("/")) history.pushState(null, "", `#${view}`);
  hideDrawer();
}

function hideDrawer() {
  const key = state.drawer && state.drawer.key;
  state.drawer = null;
  $("#drawer").hidden = true;
  for (const row of $$("tbody tr[aria-selected=true]")) row.setAttribute("aria-selected", "false");
  const row = key && $$("tbody tr[data-key]").find((candidate) => candidate.dataset.key === key);
  if (row) row.focus();
}

/** Redraws the drawer at most once per animation frame when the stream says its subject changed. */
let drawerFrame = 0;
function drawerChanged(token) {
  if (!state.drawer || !state.drawer.token || state.drawer.token !== token || drawerFrame) return;
  drawerFrame = requestAnimationFrame(() => {
    drawerFrame = 0;
    refreshDrawer();
  });
}

function fields(pairs) {
  return element("dl", {}, pairs.filter(([, value]) => value !== undefined && value !== null && value !== "")
    .flatMap(([name, value]) => [element("dt", {}, name), element("dd", {}, value)]));
}

function table(headings, rows, empty) {
  if (!rows.length) return element("p", { class: "muted" }, empty);
  return element("div", { class: "table-wrap" }, element("table", {},
    element("thead", {}, element("tr", {}, headings.map((heading) => element("th", {}, heading)))), element("tbody", {}, rows)));
}

function openDevice(device) {
  const token = device.registrationToken;
  const app = device.application.integrationKey;
  const render = async () => {
    const query = `${encodeURIComponent(token)}?app=${encodeURIComponent(app)}`;
    const [full, events] = await Promise.all([api(`/_mock/devices/${query}`),
      api(`/_mock/events?token=${encodeURIComponent(token)}&limit=200`)]);
    const info = full.device || {};
    const history = (full.history || []).slice().reverse().map((entry) => element("tr", {}, element("td", {}, time(entry.receivedAt)),
      element("td", {}, (entry.changes || []).join(", ")), element("td", {}, entry.userKey || ""),
      element("td", {}, (entry.params || []).map((param) => `${param.name}=${param.value}`).join(", "))));
    const messages = (full.messages || []).slice().reverse().map((message) => element("tr", {}, element("td", {}, message.messageId),
      element("td", {}, message.deliveryId), element("td", {}, time(message.sentAt)), element("td", {}, time(message.receivedAt) || "—"),
      element("td", {}, time(message.openedAt) || "—")));
    const hits = events.events.map((event) => element("tr", {}, element("td", {}, time(event.receivedAt)),
      element("td", {}, element("span", { class: `badge ${event.type}` }, event.type)), element("td", {}, element("code", {}, event.rawId))));
    return [
      element("h3", {}, "Integration checks"),
      deviceChecks(token, app),
      fields([["Application", `${full.application.name} (${full.application.integrationKey})`], ["Platform", full.application.platform],
        ["Token", element("code", {}, full.registrationToken)], ["userKey", full.userKey || "(none)"],
        ["Device name", info.deviceName], ["Model", info.deviceModel], ["Brand", info.deviceBrand], ["Manufacturer", info.deviceManufacturer],
        ["OS", osLabel(info.osName, info.osVersion)], ["Language", info.osLanguage], ["IMEI", info.deviceImei],
        ["Params", (full.params || []).map((param) => `${param.name} = ${param.value} (${param.type})`).join("\n") || "(none)"],
        ["Registrations", String(full.registrationCount)], ["First seen", full.createdAt], ["Last seen", full.updatedAt],
        ["Disabled", full.disabled ? "yes" : ""]]),
      element("div", { class: "row" }, element("button", { type: "button", onclick: () => {
        closeDrawer();
        choosePushDevice(full);
        location.hash = "#push";
      } }, "Compose a push for this device"), removeButton(full)),
      element("h3", {}, "Sending to the real device"),
      ...trustControls(full),
      element("h3", {}, "Registration history"),
      table(["Received", "Changed", "userKey", "Params"], history, "None."),
      element("h3", {}, "Pushes"),
      table(["_mId", "_dId", "Sent", "Received", "Opened"], messages, "None composed for this device."),
      element("h3", {}, "Tracking events"),
      table(["Time", "Type", "Id as sent"], hits, "None yet."),
    ];
  };
  openDrawer(`devices:${app}\u0000${token}`, `${appName(app)} · ${token}`, render, urls.device(token, app));
  state.drawer.token = token;
}

/** Removes this one device (its history, trust and findings); its events and pushes stay, linked to no device. */
function removeButton(device) {
  const token = device.registrationToken;
  const app = device.application.integrationKey;
  const button = element("button", { type: "button", class: "danger", "data-testid": "device-remove", onclick: async () => {
    if (!confirm(`Remove the device ${token} of ${app}? Its registration history, its trust and the findings about it go; its tracking events and pushes stay, linked to no device.`)) return;
    button.disabled = true;
    try {
      const answer = await api(`/_mock/devices/${encodeURIComponent(token)}?app=${encodeURIComponent(app)}`, { method: "DELETE" });
      const gone = answer.deleted;
      closeDrawer();
      lists.devices.load().catch(showFailure);
      $("#devices-notice").textContent = `Removed ${token} (${app}): ${plural(gone.registrations, "registration")}; `
        + `${plural(gone.eventsUnlinked, "tracking event")} and ${plural(gone.pushesKept, "push", )} kept, linked to no device`
        + `${answer.trustRemoved ? "; no longer trusted" : ""}${answer.findingsCleared ? `; ${plural(answer.findingsCleared, "finding")} cleared` : ""}.`;
      $("#devices-notice").hidden = false;
    } catch (failure) {
      button.disabled = false;
      alert(failure.message);
    }
  } }, "Remove this device…");
  return button;
}

/** A SOAP fault's code and text, when the body is one. */
function soapFault(body) {
  if (!body || !body.includes("Fault")) return null;
  const pick = (name) => ((body.match(new RegExp(`<${name}[^>]*>([\\s\\S]*?)</${name}>`)) || [])[1] || "").replace(/<!\[CDATA\[|\]\]>/g, "").trim();
  const text = pick("faultstring");
  return text ? `${pick("faultcode")} ${text}`.trim() : null;
}

function bodyBlock(title, message) {
  if (!message) return [];
  const text = message.bodyEncoding === "base64" ? `(base64) ${message.body}` : prettyBody(message.body, message.headers);
  const headers = (message.headers || []).map(([name, value]) => `${name}: ${value}`).join("\n");
  return [element("h3", {}, title), element("pre", {}, headers || "(no headers)"),
    element("pre", {}, text + (message.bodyTruncated ? "\n… (truncated)" : ""))];
}

function openRequest(id) {
  openDrawer(`requests:${id}`, `Request ${id}`, async () => {
    const entry = await api(`/_mock/requests/${id}`);
    $("#drawer-title").textContent = `${entry.method} ${entry.target} → ${entry.status}`;
    const fault = soapFault(entry.response && entry.response.body);
    return [
      fields([["Received", entry.receivedAt], ["From", entry.remoteAddress], ["Endpoint", entry.endpoint],
        ["Application", entry.appKey], ["Status", String(entry.status)], ["Reason", entry.reason], ["Duration", `${entry.durationMs.toFixed(2)} ms`]]),
      fault ? element("p", { class: "fault" }, element("strong", {}, "SOAP fault: "), fault) : null,
      ...bodyBlock("Request", entry),
      ...(entry.response ? bodyBlock(`Response ${entry.status}`, entry.response)
        : [element("p", { class: "muted" }, "The answer was not journaled (an entry from before the journal kept answers).")]),
    ].filter(Boolean);
  }, urls.request(id));
}

// ---------------------------------------------------------------------------------------------- overview

function showView(name) {
  const view = $$("[data-view-panel]").some((panel) => panel.dataset.viewPanel === name) ? name : "overview";
  for (const panel of $$("[data-view-panel]")) panel.hidden = panel.dataset.viewPanel !== view;
  for (const link of $$("nav a, #checks-badge")) {
    if (link.dataset.view === view) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  window.scrollTo(0, 0);
}

function renderOverview() {
  const info = state.info;
  const rows = [["This machine", info.baseURL]];
  if (info.httpsURL) rows.push(["HTTPS", info.httpsURL]);
  for (const entry of info.deviceURLs) rows.push([entry.use, entry.url]);
  rows.push(["SOAP router", `${info.baseURL}/nl/jsp/soaprouter.jsp (operators ${info.soapLogins.join(", ")}, bearer ${info.soapBearerTokens.join(", ")})`]);
  $("#urls").replaceChildren(...rows.map(([use, url]) => {
    const button = element("button", { type: "button", class: "small", onclick: () => copy(url.split(" ")[0], button) }, "Copy");
    return element("tr", {}, element("td", { class: "muted" }, use), element("td", {}, element("code", {}, url)), element("td", {}, button));
  }));
  $("#sending").replaceChildren(...sendingWords(info.sending));
  $("#ca").hidden = !info.certificateAuthorityFingerprint;
  $("#ca-fingerprint").textContent = info.certificateAuthorityFingerprint || "";
  const keep = info.retention;
  if (keep) {
    const limit = (count, what) => (count ? `the newest ${number(count)} ${what}` : `every ${what.replace(/s$/, "")}`);
    $("#retention").textContent = `Keeps ${limit(keep.events, "events")}, ${limit(keep.devices, "devices")} and `
      + `${limit(keep.journal, "requests")}; ${keep.days ? `nothing older than ${keep.days} days` : "no age limit"} `
      + "(--retain-events, --retain-devices, --journal-limit, --retain-days).";
  }
  for (const link of $$("[data-ca]")) {
    link.onclick = async (event) => {
      event.preventDefault();
      const response = await fetch(`/_mock/ca?format=${link.dataset.ca}`, { headers: state.token ? { Authorization: `Bearer ${state.token}` } : {} });
      const blob = await response.blob();
      const anchor = element("a", { href: URL.createObjectURL(blob), download: link.getAttribute("download") });
      document.body.append(anchor);
      anchor.click();
      anchor.remove();
    };
  }
  renderSnippets();
}

/** What sending is configured: the providers, the allow-list, auto-send, and what trust adds. */
function sendingWords(sending) {
  if (!sending || (!sending.apns && !sending.fcm)) {
    return ["Off: no APNs or FCM credentials (--apns-key-file…, --fcm-service-account), so no push reaches a real device. ",
      "Pushes are composed, and go to this machine's simulators and emulators."];
  }
  const providers = [sending.apns && `APNs (${sending.apns})`, sending.fcm && `FCM (project ${sending.fcm})`].filter(Boolean).join(" and ");
  const allow = sending.allowList.length
    ? [" to the devices the allow-list lets through: ", ...sending.allowList.flatMap((pattern, index) => [index ? ", " : "", element("code", {}, pattern)]),
      ". A token: pattern lets its device through alone; any other only once the device is trusted on its page (Devices)."]
    : [", but the allow-list is empty (--send-allow): nothing is sent yet."];
  return [element("strong", {}, `On: ${providers}`), ...allow,
    sending.autoSend ? " Every composed push is sent at once (--auto-send)." : " A push is sent when you click Send to device."];
}

function renderApps() {
  checks.appCells.clear();
  $("#apps").replaceChildren(...state.apps.map((app) => {
    const copyButton = element("button", { type: "button", class: "small", onclick: () => copy(app.integrationKey, copyButton) }, "Copy");
    const toggle = element("input", { type: "checkbox", checked: app.enabled, "aria-label": `Enable ${app.name}`,
      onchange: async () => {
        await api(`/_mock/apps/${encodeURIComponent(app.integrationKey)}`, { method: "PUT", body: { enabled: toggle.checked } });
        await loadApps();
      } });
    const field = identifierField(app.platform);
    const identifier = element("input", { value: app[field] || "", placeholder: "com.example.app",
      "aria-label": `${app.platform === "ios" ? "Bundle id" : "Package name"} of ${app.name}`, dataset: { testid: "app-identifier-edit" },
      onchange: () => saveApp(() => api(`/_mock/apps/${encodeURIComponent(app.integrationKey)}`,
        { method: "PUT", body: { [field]: identifier.value.trim() } })) });
    const findings = element("td", {});
    checks.appCells.set(app.integrationKey, findings);
    checks.drawApp(app.integrationKey);
    return element("tr", {}, element("td", {}, app.name), element("td", {}, app.platform),
      element("td", {}, element("code", {}, app.integrationKey), " ", copyButton), element("td", {}, identifier),
      element("td", {}, toggle), findings);
  }));
  const chosen = $("#checks-app").value;
  $("#checks-app").replaceChildren(element("option", { value: "" }, "every application"),
    ...state.apps.map((app) => element("option", { value: app.integrationKey }, `${app.name} (${app.integrationKey})`)));
  $("#checks-app").value = chosen;
  renderSnippets();
}

// What pushes to a simulator or an emulator need: an iOS app's bundle id, an Android app's package name.
function identifierField(platform) {
  return platform === "ios" ? "bundleId" : "packageName";
}

// Adds or changes an application, showing the server's reason when it refuses, then reloads the list.
async function saveApp(send) {
  const error = $("#app-error");
  error.hidden = true;
  try {
    await send();
    return true;
  } catch (failure) {
    showFailure(failure);
    error.textContent = failure.message;
    error.hidden = false;
    return false;
  } finally {
    await loadApps();
  }
}

function renderSnippets() {
  if (!state.info) return;
  const plain = new URL(state.info.baseURL);
  const secure = state.info.httpsURL ? new URL(state.info.httpsURL) : null;
  const emulator = (state.info.deviceURLs.find((entry) => entry.url.startsWith("http://10.0.2.2")) || {}).url || `http://10.0.2.2:${plain.port}`;
  const emulatorSecure = (state.info.deviceURLs.find((entry) => entry.url.startsWith("https://10.0.2.2")) || {}).url;
  const ios = state.apps.find((app) => app.platform === "ios") || { integrationKey: "IOS_KEY" };
  const android = state.apps.find((app) => app.platform === "android") || { integrationKey: "ANDROID_KEY" };
  const simulatorHost = `localhost:${plain.port}`;
  const aepNote = secure ? "// Bare host:port: the extension adds https:// itself.\n"
    : "// The AEP extension always uses https://: start the server with --tls auto.\n";
  const snippets = [
    ["iOS, AEP Campaign Classic extension, simulator", `${aepNote}MobileCore.updateConfigurationWith(configDict: [\n  "campaignclassic.marketingServer": "${secure ? `localhost:${secure.port}` : simulatorHost}",\n  "campaignclassic.trackingServer": "${secure ? `localhost:${secure.port}` : simulatorHost}",\n  "campaignclassic.ios.integrationKey": "${ios.integrationKey}",\n  "global.privacy": "optedin"\n])`],
    ["Android, AEP Campaign Classic extension, emulator", `${aepNote}MobileCore.updateConfiguration(mapOf(\n  "campaignclassic.marketingServer" to "${emulatorSecure ? new URL(emulatorSecure).host : new URL(emulator).host}",\n  "campaignclassic.trackingServer" to "${emulatorSecure ? new URL(emulatorSecure).host : new URL(emulator).host}",\n  "campaignclassic.android.integrationKey" to "${android.integrationKey}",\n  "global.privacy" to "optedin"\n))`],
    ["iOS, Campaign SDK (legacy), simulator", `Neolane_SDK *nl = [Neolane_SDK getInstance];\n[nl setMarketingHost:@"http://${simulatorHost}/"];\n[nl setTrackingHost:@"http://${simulatorHost}/"];\n[nl setIntegrationKey:@"${ios.integrationKey}"];`],
    ["Android, Campaign SDK (legacy), emulator", `Neolane.getInstance().setMarketingHost("${emulator}/");\nNeolane.getInstance().setTrackingHost("${emulator}/");\nNeolane.getInstance().setIntegrationKey("${android.integrationKey}");`],
  ];
  $("#snippets").replaceChildren(...snippets.map(([title, text]) => codeBlock(title, text)));
}

// ---------------------------------------------------------------------------------------------- push

/**
 * The device picker: a search over the devices (the admin API's `q`), asked at most every 250 ms. The
 * first match is highlighted (arrows move it); Enter chooses it rather than submitting the form, and a
 * search that finds exactly the token typed or pasted chooses that device by itself.
 */
function wirePushDevicePicker() {
  const input = $("#push-device-search");
  const options = $("#push-device-options");
  let timer = 0;
  let found = [];
  let foundFor = null;  // the text `found` matches
  let highlighted = 0;
  const highlight = (index) => {
    highlighted = Math.max(0, Math.min(index, found.length - 1));
    $$("li[role=option]", options).forEach((item, position) => item.setAttribute("aria-selected", String(position === highlighted)));
  };
  const search = async () => {
    const typed = input.value.trim();
    const page = await api(`/_mock/devices?limit=20&q=${encodeURIComponent(typed)}`);
    if (input.value.trim() !== typed) return false;  // a newer search is on its way
    found = page.devices;
    foundFor = typed;
    const exact = typed && found.filter((device) => device.registrationToken === typed);
    if (exact && exact.length === 1) {
      choosePushDevice(exact[0]);
      return true;
    }
    options.replaceChildren(...found.map((device) => element("li", { role: "option", tabindex: 0,
      onclick: () => choosePushDevice(device), onkeydown: (event) => { if (event.key === "Enter") { event.preventDefault(); choosePushDevice(device); } } },
    `${device.application.name} (${device.application.platform}) · ${device.registrationToken}${device.userKey ? " · " + device.userKey : ""}`)));
    if (!found.length) options.append(element("li", { class: "muted" }, typed ? `No device matches “${typed}”.` : "No devices yet."));
    if (page.total > found.length) options.append(element("li", { class: "muted" }, `${number(page.total - found.length)} more: type to narrow`));
    options.hidden = false;
    highlight(0);
    return false;
  };
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(() => search().catch(showFailure), 250);
  });
  input.addEventListener("focus", () => search().catch(showFailure));
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") options.hidden = true;
    else if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      highlight(highlighted + (event.key === "ArrowDown" ? 1 : -1));
    } else if (event.key === "Enter") {
      // Enter in the search box chooses; it never submits the form without a device.
      event.preventDefault();
      clearTimeout(timer);
      if (!options.hidden && foundFor === input.value.trim() && found.length) choosePushDevice(found[highlighted]);
      else search().then((chosen) => { if (!chosen && found.length) choosePushDevice(found[0]); }).catch(showFailure);
    }
  });
}

function choosePushDevice(device) {
  state.pushDevice = device;
  $("#push-device-options").hidden = true;
  $("#push-device-search").value = "";
  const chosen = $("#push-device");
  chosen.classList.remove("muted");
  chosen.replaceChildren(`${device.application.name} (${device.application.platform}) · `, element("code", {}, device.registrationToken),
    device.userKey ? ` · ${device.userKey}` : "");
  renderPreview();
}

async function preselectPushDevice() {
  if (state.pushDevice) return;
  const page = await api("/_mock/devices?limit=1");
  if (page.devices.length && !state.pushDevice) choosePushDevice(page.devices[0]);
}

function pushFields() {
  const data = new FormData($("#push-form"));
  const device = state.pushDevice;
  const request = { token: device ? device.registrationToken : "", app: device ? device.application.integrationKey : undefined };
  for (const name of ["title", "body", "sound", "category", "mediaUrl", "idStyle"]) {
    const value = (data.get(name) || "").trim();
    if (value) request[name] = value;
  }
  if (data.get("badge")) request.badge = Number(data.get("badge"));
  if (data.get("silent")) request.silent = true;
  const variables = (data.get("variables") || "").split(",").map((pair) => pair.trim()).filter(Boolean);
  if (variables.length) {
    request.variables = Object.fromEntries(variables.map((pair) => {
      const [key, ...rest] = pair.split("=");
      return [key.trim(), rest.join("=").trim()];
    }));
  }
  return { request, device };
}

/** Drawn here, from the form alone: typing sends nothing, and a media URL is loaded only when asked. */
function renderPreview() {
  const { request, device } = pushFields();
  const platform = device ? device.application.platform : null;
  for (const phone of $$(".phone")) {
    const inactive = platform && !phone.classList.contains(platform);
    phone.toggleAttribute("data-inactive", !!inactive);
    phone.hidden = !!inactive;
    $(".app", phone).textContent = device ? device.application.name : "Your app";
    $(".title", phone).textContent = request.silent ? "" : request.title || "";
    $(".body", phone).textContent = request.silent ? "Silent push: nothing is shown" : request.body || "";
    $(".body", phone).classList.toggle("silent", !!request.silent);
    const media = $(".media", phone);
    if (!request.mediaUrl || request.silent) media.replaceChildren();
    else if (state.loadImage === request.mediaUrl) media.replaceChildren(element("img", { src: request.mediaUrl, alt: "" }));
    else media.replaceChildren("Image: ", element("code", {}, request.mediaUrl), " ",
      element("button", { type: "button", class: "small", onclick: () => { state.loadImage = request.mediaUrl; renderPreview(); } }, "Load image"));
  }
}

/** Where each shown message's send outcome goes, by push, app and token: a `send` stream event (from the
 * button, `campaign-mock push --send` or --auto-send) fills it in. An auto-send can answer before the
 * composed push is drawn, so the last answers seen are kept for it. */
const sendOutcomes = new Map();
const recentSends = new Map();
const sendKey = (pushId, app, token) => `${pushId} ${app} ${token}`;

/** "Send to device" through APNs or FCM, shown when the server has that provider configured. */
function sendBlock(push, message) {
  const sending = (state.info && state.info.sending) || { allowList: [] };
  const provider = message.platform === "ios" ? "apns" : "fcm";
  const where = message.platform === "ios" ? sending.apns && `APNs ${sending.apns}` : sending.fcm && `FCM project ${sending.fcm}`;
  const outcome = element("p", { class: "send-outcome", "data-testid": "push-send-outcome" });
  const key = sendKey(push.id, message.app, message.registrationToken);
  sendOutcomes.set(key, outcome);
  if (recentSends.has(key)) drawSend(outcome, recentSends.get(key));
  if (!where) {
    const setting = provider === "apns" ? "--apns-key-file, --apns-key-id and --apns-team-id" : "--fcm-service-account";
    return element("div", { class: "payload" }, cardHeading("Send to the device"),
      element("p", { class: "muted" }, `To send it to the real device through ${provider.toUpperCase()}, start the server with ${setting} and a --send-allow pattern (docs/push-on-device.md).`));
  }
  const button = element("button", { type: "button", "data-testid": "push-send", onclick: async () => {
    button.disabled = true;
    outcome.textContent = "Sending…";
    try {
      const { sends } = await api(`/_mock/push/${push.id}/send`, { method: "POST", body: { registrationToken: message.registrationToken } });
      for (const sent of sends) showSend(sent);
    } catch (failure) {
      outcome.textContent = failure.message;
    } finally {
      button.disabled = false;
    }
  } }, `Send to device (${where})`);
  const allow = sending.allowList.length
    ? `Allow-list: ${sending.allowList.join(", ")}. A device goes through on a token: pattern, or on another pattern once trusted for sending on its page (Devices).`
    : "The allow-list is empty: nothing will be sent until --send-allow lets this device through.";
  return element("div", { class: "payload" }, cardHeading("Send to the device"), element("p", { class: "muted" }, allow),
    element("div", { class: "row" }, button), outcome);
}

/** Trust for sending, as state: whether this machine trusted the token (explicit trust only), which
 * --send-allow pattern matches the device, and the one action that changes it (Trust / Stop trusting). A
 * device registers itself, so a userKey:, app: or * pattern alone proves nothing. */
function trustControls(device) {
  const sending = (state.info && state.info.sending) || { allowList: [] };
  const token = device.registrationToken;
  const match = device.sendAllowMatch;
  const trusted = !!device.trusted;
  const configured = sending.apns || sending.fcm;
  const words = !configured ? "Sending is not configured (no --apns-* or --fcm-* settings): nothing is sent to a real device."
    : match && match.startsWith("token:") ? `Sent to: the allow-list's ${match} lets it through${trusted ? " (and it is trusted)" : ""}.`
      : match && trusted ? `Sent to: trusted here, and the allow-list's ${match} matches it.`
        : match ? `Not sent yet: the allow-list's ${match} matches it, but it is not trusted here. Trust it to let pushes through.`
          : `Not sent: no --send-allow pattern matches it${trusted ? " (it is trusted, but a pattern must match too)" : ""}.`;
  const state_ = element("p", { "data-testid": "device-trust-state", dataset: { trusted: String(trusted) } },
    element("span", { class: trusted ? "badge trusted" : "badge" }, trusted ? "trusted" : "not trusted"), " ", words);
  const outcome = element("span", { class: "error", "data-testid": "device-trust-outcome" });
  const button = element("button", { type: "button", "data-testid": "device-trust", onclick: async () => {
    button.disabled = true;
    try {
      await api(`/_mock/devices/${encodeURIComponent(token)}/trust`, { method: trusted ? "DELETE" : "POST" });
      lists.devices.load().catch(showFailure);
      await refreshDrawer();
    } catch (failure) {
      outcome.textContent = failure.message;
      button.disabled = false;
    }
  } }, trusted ? "Stop trusting" : "Trust for sending");
  return [state_, element("div", { class: "row" }, button, outcome)];
}

/** Shows a send's outcome beside its message when that push is on screen, and keeps the last ones for a
 * push about to be drawn. */
function showSend(sent) {
  const key = sendKey(sent.pushId, sent.app, sent.registrationToken);
  recentSends.set(key, sent);
  if (recentSends.size > 100) recentSends.delete(recentSends.keys().next().value);
  const outcome = sendOutcomes.get(key);
  if (outcome) drawSend(outcome, sent);
}

function drawSend(outcome, sent) {
  const detail = [sent.status, sent.reason, sent.providerId].filter((part) => part !== undefined).join(" ");
  outcome.dataset.outcome = sent.outcome;
  outcome.replaceChildren(element("strong", {}, `${sent.outcome}${detail ? ` (${detail})` : ""}: `), sent.explanation);
}

/** Sends the tracking hit the SDK would send for `path` (`/r/?id=…`), as the app would. */
async function simulate(path, button) {
  const response = await fetch(path);
  button.textContent = response.ok ? `${button.dataset.label}: ${response.status}` : `failed: ${response.status}`;
}

const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
/** A finding's message with its `quoted` names set as code. */
const withCode = (text) => text.split("`").map((part, index) => (index % 2 ? element("code", {}, part) : part));

/** The payload check of one composed message (docs/push.md, Payload check): the counts, whether the SDK
 * tracks the push, and each finding with its severity. */
function checkPanel(check, label) {
  const counts = element("p", { class: "check-counts", "data-testid": "push-check-counts" },
    element("span", { class: `badge ${check.errors ? "bad" : "ok"}` }, plural(check.errors, "error")),
    element("span", { class: `badge ${check.warnings ? "warn" : "ok"}` }, plural(check.warnings, "warning")));
  const tracking = check.tracked
    ? element("p", { class: "muted" }, "Tracked: the SDK sends its receive and open hits for this push.")
    : element("p", { class: "untracked", role: "alert", "data-testid": "push-check-untracked" },
      "The SDK would not track this push: no receive or open hit reaches Campaign.");
  const findings = check.findings.length
    ? element("ul", { class: "findings" }, check.findings.map((finding) =>
      element("li", { "data-testid": "push-check-finding", dataset: { rule: finding.rule, severity: finding.severity } },
        element("span", { class: `severity ${finding.severity}` }, finding.severity), " ",
        element("code", {}, finding.path || "payload"), " ", withCode(finding.message), " ",
        element("span", { class: "muted rule" }, finding.rule))))
    : element("p", { class: "muted" }, "No findings: the platform takes this payload as it is.");
  return element("div", { class: "payload", "data-testid": "push-check" }, cardHeading(["Payload check (", label, ")"]),
    counts, tracking, findings);
}

/** Shows the checks of a composed push's messages beside the previews. */
function showChecks(messages) {
  const panels = messages.filter((message) => message.check).map((message) => checkPanel(message.check, deviceLabel(message)));
  $("#push-checks").replaceChildren(...panels);
  $("#push-checks").hidden = !panels.length;
}

/** `ios 6e657761…6f6b656e` (the token shortened): which device a composed message is for (nodes, for a heading). */
const deviceLabel = (message) => [`${message.platform} `, tokenChip(message.registrationToken)];

/** A button that runs a device tool on the server (`POST /_mock/push/{id}/simulator` or `/emulator`) and shows
 * what ran and what it printed. Offered only when the server found the tool at start. */
function deviceBlock(push, message, { tool, title, label, path, testid, note }) {
  if (!(state.info && state.info.tools && state.info.tools[tool])) return null;
  const output = element("pre", { class: "run", "data-testid": `${testid}-output`, hidden: true });
  const button = element("button", { type: "button", "data-testid": testid, onclick: async () => {
    button.disabled = true;
    output.hidden = false;
    output.textContent = "Running…";
    try {
      output.textContent = describeRun(await api(`/_mock/push/${push.id}/${path}`, { method: "POST", body: { registrationToken: message.registrationToken } }));
    } catch (failure) {
      output.textContent = failure.data && failure.data.command !== undefined ? describeRun(failure.data) : `Refused: ${failure.message}`;
    } finally {
      button.disabled = false;
    }
  } }, label);
  return element("div", { class: "payload", "data-testid": `${testid}-block` }, cardHeading(title),
    note ? element("p", { class: "muted" }, note) : null, element("div", { class: "row" }, button), output);
}

/** `$ command`, how it ended, then its output. */
function describeRun(run) {
  const ended = run.outcome === "succeeded" ? "exit status 0" : run.error;
  const lines = [`$ ${run.command}`, `${ended} (${run.milliseconds} ms)`];
  if (run.stdout) lines.push("--- stdout", run.stdout.trimEnd());
  if (run.stderr) lines.push("--- stderr", run.stderr.trimEnd());
  if (run.outputTruncated) lines.push("(output cut at 64 KiB)");
  return lines.join("\n");
}

async function composePush(event) {
  event.preventDefault();
  const { request, device } = pushFields();
  const error = $("#push-error");
  error.hidden = !!device;
  if (!device) {
    error.textContent = "Choose a device first: search for it above and pick it from the list.";
    $("#push-device-search").focus();
    return;
  }
  try {
    const push = await api("/_mock/push", { method: "POST", body: request });
    history.pushState(null, "", `#push/${push.id}`);
    drawPush(push);
    loadPushes().catch(showFailure);
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

/** A composed push's card: its tracking, the one-click sends, its payloads (after composing, or at #push/<id>). */
function drawPush(push) {
  {
    $("#push-id").textContent = `#${push.id} · delivery ${push.deliveryId}` + (push.warnings.length ? ` · ${push.warnings.join(" ")}` : "");
    sendOutcomes.clear();
    const blocks = [];
    for (const message of push.messages) {
      const label = () => deviceLabel(message);
      const receive = element("button", { type: "button", "data-testid": "push-simulate-receive", dataset: { label: "Receive sent" },
        onclick: () => simulate(message.tracking.receive, receive) }, "Simulate receive");
      const open = element("button", { type: "button", "data-testid": "push-simulate-open", dataset: { label: "Open sent" },
        onclick: () => simulate(message.tracking.open, open) }, "Simulate open");
      blocks.push(element("div", { class: "payload" }, cardHeading(["The SDK's tracking (", label(), ")"]),
        element("pre", {}, `receive: ${message.tracking.receive}\nopen:    ${message.tracking.open}`),
        element("p", { class: "muted" }, "Send the hits the SDK would send, without a device:"), element("div", { class: "row" }, receive, open)));
      if (message.platform === "ios") blocks.push(deviceBlock(push, message, { tool: "xcrun", title: ["On this machine's simulator (", label(), ")"],
        label: "Push to simulator", path: "simulator", testid: "push-to-simulator",
        note: message.bundleId ? null : `No bundle id yet: set the application's (PUT /_mock/apps/${message.app} {"bundleId": …}) or compose with one.` }));
      if (message.platform === "android") blocks.push(deviceBlock(push, message, { tool: "adb", title: ["On this machine's emulator (", label(), ")"],
        label: "Send to emulator", path: "emulator", testid: "send-to-emulator",
        note: "Android hands the broadcast to the app only from a root shell (adb root, on an emulator image without Google Play) "
          + "and to a debuggable build; elsewhere the second adb line shows the notification without the SDK." }));
      blocks.push(sendBlock(push, message));
      if (message.apns) blocks.push(codeBlock(["APNs payload (", label(), ")"], JSON.stringify(message.apns, null, 2), `campaign-mock-${message.messageId}.json`));
      if (message.apnsFile) blocks.push(codeBlock("simctl push (.apns file)", message.apnsFile, `campaign-mock-${message.messageId}.apns`));
      if (message.simctl) blocks.push(codeBlock("simctl command", message.simctl));
      if (message.fcm) blocks.push(codeBlock(["FCM HTTP v1 message (", label(), ")"], JSON.stringify(message.fcm, null, 2), `campaign-mock-${message.messageId}-fcm.json`));
      if (message.adb) blocks.push(codeBlock("adb", message.adb.join("\n")));
    }
    $("#payloads").replaceChildren(...blocks.filter(Boolean));
    // An auto-send may have answered already: what is stored shows too.
    if (state.info && state.info.sending && state.info.sending.autoSend) {
      api(`/_mock/push/${push.id}`).then((stored) => (stored.sends || []).forEach(showSend)).catch(() => {});
    }
    $("#push-result").hidden = false;
    showChecks(push.messages);
  }
}

/** The composed pushes, newest first, with their sends and hits; each row opens its card (#push/<id>). */
async function loadPushes() {
  const { pushes, total } = await api("/_mock/push?limit=50");
  $("#pushes-shown").textContent = total > pushes.length ? `newest ${number(pushes.length)} of ${number(total)}` : number(total);
  $("#pushes-empty").hidden = pushes.length > 0;
  $("#pushes").replaceChildren(...pushes.map((push) => {
    const tokens = push.messages.map((message) => message.registrationToken);
    const sends = push.sends || [];
    const accepted = sends.filter((sent) => sent.outcome === "accepted").length;
    const hits = push.hits || { receive: 0, open: 0 };
    return selectable(element("tr", { "data-testid": "push-row", dataset: { id: String(push.id) } },
      element("td", {}, element("a", { href: `#push/${push.id}` }, `#${push.id}`)), element("td", {}, time(push.createdAt)),
      element("td", {}, push.messages.map((m) => (m.apns && m.apns.aps && m.apns.aps.alert && m.apns.aps.alert.title)
        || (m.fcm && m.fcm.message && m.fcm.message.data && m.fcm.message.data.title) || "")[0] || ""),
      element("td", {}, tokens.length === 1 ? element("code", {}, tokens[0]) : plural(tokens.length, "device")),
      element("td", { class: "narrow-hide" }, push.deliveryId),
      element("td", {}, sends.length ? `${accepted} of ${plural(sends.length, "send")} accepted` : "not sent"),
      element("td", {}, `${hits.receive} receive · ${hits.open} open`)), `push:${push.id}`, () => { location.hash = `#push/${push.id}`; });
  }));
}

// ---------------------------------------------------------------------------------------------- faults

async function loadFaults() {
  const { faults } = await api("/_mock/faults");
  $("#faults").replaceChildren(...faults.map((entry) => {
    const rule = entry.rule || entry;
    const match = ["appKey", "token", "method"].filter((key) => rule[key]).map((key) => `${key}=${rule[key]}`).join(" ");
    const action = rule.drop ? "drop" : rule.reset ? "reset" : rule.status ? `${rule.status} ${rule.body || ""}` : "";
    const remove = element("button", { type: "button", class: "small danger", "aria-label": `Remove ${rule.id}`, onclick: async () => {
      await api(`/_mock/faults/${encodeURIComponent(rule.id)}`, { method: "DELETE" });
      await loadFaults();
    } }, "Remove");
    return element("tr", { "data-testid": "fault-row", dataset: { id: rule.id } }, element("td", {}, rule.id), element("td", {}, rule.endpoint),
      element("td", {}, match), element("td", {}, (rule.delayMs ? `delay ${rule.delayMs} ms ` : "") + action),
      element("td", {}, String(entry.matched ?? "")), element("td", { class: "fired" }, String(entry.fired ?? "")), element("td", {}, remove));
  }));
  $("#faults-empty").hidden = faults.length > 0;
}

async function addFault(event) {
  event.preventDefault();
  const data = new FormData(event.target);
  const rule = { endpoint: data.get("endpoint") };
  for (const name of ["status", "delayMs", "times", "after"]) if (data.get(name)) rule[name] = Number(data.get(name));
  for (const name of ["body", "appKey", "token"]) if (data.get(name)) rule[name] = data.get(name);
  if (data.get("drop")) rule.drop = true;
  if (data.get("tcpReset")) rule.reset = true;
  const error = $("#fault-error");
  error.hidden = true;
  try {
    await api("/_mock/faults", { method: "POST", body: rule });
    event.target.reset();
    await loadFaults();
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
}

// ---------------------------------------------------------------------------------------------- integration checks

const SEVERITIES = ["error", "warning", "info"];
const SEVERITY_WORDS = { error: ["error", "errors"], warning: ["warning", "warnings"], info: ["info", "info"] };
const noCounts = () => ({ error: 0, warning: 0, info: 0 });

/** "2 errors, 1 warning" (the severities with findings), or `none`. */
function describeCounts(counts, none = "none") {
  const parts = SEVERITIES.filter((severity) => counts[severity])
    .map((severity) => `${number(counts[severity])} ${SEVERITY_WORDS[severity][counts[severity] === 1 ? 0 : 1]}`);
  return parts.length ? parts.join(", ") : none;
}

/**
 * The integration checks' findings (docs/checks.md): `GET /_mock/checks` once, then the `check` events of the
 * stream, kept by id with their counts (in all and by application) changed as each event arrives. What shows
 * them (the header's badge, the applications' counts, the Checks view, an open device) is redrawn at most
 * once per animation frame, and in the Checks view only the findings that changed.
 */
const checks = {
  findings: new Map(), nodes: new Map(), changed: new Set(), changedApps: new Set(), appCells: new Map(),
  counts: noCounts(), byApp: new Map(), frame: 0, announcement: "",

  async load() {
    const answer = await api("/_mock/checks");
    this.findings = new Map();
    this.counts = noCounts();
    this.byApp = new Map();
    for (const finding of answer.findings) {
      this.findings.set(finding.id, finding);
      this.count(finding, 1);
    }
    this.changed.clear();
    this.changedApps.clear();
    this.render();
    this.drawBadge();
    for (const key of this.appCells.keys()) this.drawApp(key);
  },

  count(finding, delta) {
    this.counts[finding.severity] += delta;
    if (!finding.app) return;
    if (!this.byApp.has(finding.app)) this.byApp.set(finding.app, noCounts());
    this.byApp.get(finding.app)[finding.severity] += delta;
    this.changedApps.add(finding.app);
  },

  /** A `check` stream event: a finding appeared, was updated (a new occurrence) or cleared. */
  apply({ change, finding }) {
    const known = this.findings.get(finding.id);
    if (known) this.count(known, -1);
    if (change === "cleared") {
      this.findings.delete(finding.id);
    } else {
      this.findings.set(finding.id, finding);
      this.count(finding, 1);
      if (!known && finding.severity === "error") this.announcement = `New integration check error: ${finding.title}`;
    }
    this.changed.add(finding.id);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
    drawerChanged(finding.registrationToken);
  },

  flush() {
    this.frame = 0;
    for (const id of this.changed) this.redraw(id);
    this.changed.clear();
    for (const key of this.changedApps) this.drawApp(key);
    this.changedApps.clear();
    this.drawBadge();
    this.drawShown();
    if (this.announcement) $("#checks-announce").textContent = this.announcement;
    this.announcement = "";
  },

  matches(finding) {
    const severity = $("#checks-severity").value;
    const app = $("#checks-app").value;
    return (!severity || finding.severity === severity) && (!app || finding.app === app);
  },

  /** Newest first (by when last seen) within each severity. */
  sorted(findings) {
    return [...findings].sort((a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity)
      || String(b.lastSeen).localeCompare(String(a.lastSeen)));
  },

  /** The Checks view from scratch: on load and when its filters change, never per event. */
  render() {
    this.nodes = new Map();
    const groups = SEVERITIES.map((severity) => element("section", { class: "check-group", dataset: { severity } },
      element("h3", {}, element("span", { class: `severity ${severity}` }, SEVERITY_WORDS[severity][1])),
      element("ol", { class: "findings checks-list", "aria-label": SEVERITY_WORDS[severity][1] })));
    $("#checks-groups").replaceChildren(...groups);
    for (const finding of this.sorted(this.findings.values())) {
      if (!this.matches(finding)) continue;
      const node = findingNode(finding);
      this.nodes.set(finding.id, node);
      this.list(finding.severity).append(node);
    }
    this.drawShown();
  },

  list(severity) {
    return $(`#checks-groups .check-group[data-severity=${severity}] ol`);
  },

  /** One finding that changed: drawn again on top of its severity (newest first), or taken away. */
  redraw(id) {
    const old = this.nodes.get(id);
    if (old) old.remove();
    this.nodes.delete(id);
    const finding = this.findings.get(id);
    if (!finding || !this.matches(finding)) return;
    const node = findingNode(finding);
    node.classList.add("fresh");
    this.nodes.set(id, node);
    this.list(finding.severity).prepend(node);
  },

  drawShown() {
    const shown = this.nodes.size;
    $("#checks-shown").textContent = `${number(shown)} of ${number(this.findings.size)}`;
    for (const group of $$("#checks-groups .check-group")) group.hidden = !$("ol", group).children.length;
    const empty = $("#checks-empty");
    empty.hidden = shown > 0;
    if (!empty.hidden) {
      empty.replaceChildren(this.findings.size
        ? "No finding matches these filters."
        : "No findings: nothing in the traffic so far goes against what the Campaign SDKs and their integration guides expect. "
          + "Findings appear here, live, as the apps register and track pushes.");
    }
  },

  /** The header's badge, always in sight: counts by severity, coloured by the worst; the tab's title counts the
   * errors and warnings, and its icon turns red or amber, so a background tab shows them too. */
  drawBadge() {
    const badge = $("#checks-badge");
    const { error, warning, info } = this.counts;
    const worst = error ? "error" : warning ? "warning" : info ? "info" : "clean";
    if (badge.dataset.state !== worst) {
      const colour = { error: "#c62828", warning: "#e08a00" }[worst];
      $("link[rel=icon]").href = colour ? `data:image/svg+xml,${encodeURIComponent(
        `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><circle cx="8" cy="8" r="7" fill="${colour}"/></svg>`)}` : "data:,";
    }
    badge.dataset.state = worst;
    const parts = SEVERITIES.filter((severity) => this.counts[severity]).map((severity) =>
      element("span", { class: `count ${severity}`, dataset: { severity }, title: SEVERITY_WORDS[severity][1] },
        element("span", { class: "mark", "aria-hidden": "true" }, { error: "✕", warning: "!", info: "i" }[severity]), number(this.counts[severity])));
    $("#checks-summary").replaceChildren(...(parts.length ? parts : [element("span", { class: "count clean" }, "✓ none")]));
    badge.setAttribute("aria-label", `Integration checks: ${describeCounts(this.counts, "no findings")}`);
    const serious = error + warning;
    document.title = `${serious ? `(${number(serious)}) ` : ""}campaign-mock console`;
  },

  /** The counts of one application, in its row of the Overview. */
  drawApp(key) {
    const cell = this.appCells.get(key);
    if (!cell) return;
    const counts = this.byApp.get(key) || noCounts();
    const worst = SEVERITIES.find((severity) => counts[severity]);
    cell.replaceChildren(worst
      ? element("a", { href: "#checks", class: `app-checks ${worst}`, "data-testid": "app-checks", onclick: () => showChecksOf(key) },
        describeCounts(counts))
      : element("span", { class: "muted", "data-testid": "app-checks" }, "none"));
  },

  /** The findings about one device, for its drawer. */
  ofDevice(token, app) {
    return this.sorted([...this.findings.values()].filter((finding) => finding.registrationToken === token
      && (!finding.app || finding.app === app)));
  },
};

/** The Checks view with its application filter set to `key`. */
function showChecksOf(key) {
  $("#checks-app").value = key;
  $("#checks-severity").value = "";
  checks.render();
}

/** One finding: severity, title and count; what it means and what to change; where it was seen, its evidence
 * (the requests open beside the list) and the section of docs/checks.md about its rule. */
function findingNode(finding) {
  const evidence = finding.evidence || {};
  const where = [];
  if (finding.app) where.push(`${appName(finding.app)}${finding.platform ? ` (${finding.platform})` : ""}`);
  if (finding.registrationToken) {
    const token = finding.registrationToken;
    where.push(finding.app ? element("a", { href: "#devices", "data-testid": "check-device", onclick: (click) => {
      click.preventDefault();
      openDevice({ registrationToken: token, application: { integrationKey: finding.app } });
    } }, `device ${token.length > 20 ? `${token.slice(0, 8)}…${token.slice(-6)}` : token}`) : `device ${token}`);
  }
  if (finding.messageId) where.push(`_mId ${finding.messageId}`);
  const requests = (evidence.requestIds || []).slice(-5).map((id) => element("a", { href: "#requests", "data-testid": "check-request",
    onclick: (click) => { click.preventDefault(); openRequest(id); } }, `#${id}`));
  return element("li", { class: "check", "data-testid": "check-finding",
    dataset: { id: finding.id, rule: finding.rule, severity: finding.severity } },
  element("a", { class: "permalink", href: urls.finding(finding.id), title: "This finding's link", "data-testid": "check-link" }, "#"),
  element("div", { class: "check-head" }, element("span", { class: `severity ${finding.severity}` }, finding.severity), " ",
    element("strong", { class: "check-title" }, withCode(finding.title)),
    finding.count > 1 ? element("span", { class: "muted", title: "occurrences" }, ` ×${number(finding.count)}`) : null),
  element("p", { class: "check-message" }, withCode(finding.message)),
  finding.fix ? element("p", { class: "check-fix" }, element("strong", {}, "What to change: "), withCode(finding.fix)) : null,
  element("p", { class: "muted check-evidence" },
    where.flatMap((part, index) => (index ? [" · ", part] : [part])), where.length ? " · " : "",
    `seen ${time(finding.firstSeen)}${finding.lastSeen !== finding.firstSeen ? ` to ${time(finding.lastSeen)}` : ""}`,
    requests.length ? [" · requests ", requests.flatMap((link, index) => (index ? [" ", link] : [link]))] : null,
    " · ", docLink(finding), " ", element("code", { class: "rule" }, finding.rule)));
}

/** The findings of one device, for its drawer. */
function deviceChecks(token, app) {
  const findings = checks.ofDevice(token, app);
  if (!findings.length) return element("p", { class: "muted", "data-testid": "device-checks" }, "No finding about this device.");
  return element("ol", { class: "findings checks-list", "data-testid": "device-checks" }, findings.map(findingNode));
}

/** A finding's `doc` (`docs/checks.md#<rule>`): docs/checks.md is built into the binary beside the console
 * (`/_mock/ui/checks.md`), so a click opens the rule's section in the drawer, with no request leaving this
 * server; opened in a tab of its own, the link shows the page as Markdown. */
function docLink(finding) {
  const [path, anchor = ""] = String(finding.doc || "").split("#");
  const file = path.split("/").pop();
  return element("a", { href: `/_mock/ui/${file}`, "data-testid": "check-doc", onclick: (click) => {
    if (click.ctrlKey || click.metaKey || click.shiftKey) return;  // a tab of its own
    click.preventDefault();
    openDoc(file, anchor);
  } }, finding.doc);
}

const docTexts = new Map();

function openDoc(file, anchor) {
  openDrawer(`doc:${file}#${anchor}`, `${file} · ${anchor}`, async () => {
    if (!docTexts.has(file)) {
      const response = await fetch(`/_mock/ui/${file}`);
      if (!response.ok) throw new Error(`the console has no ${file}`);
      docTexts.set(file, await response.text());
    }
    return markdownSection(docTexts.get(file), anchor);
  });
}

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading) => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");

/** The section of a Markdown page under the heading whose anchor is `anchor` (the whole page without one), as
 * headings, paragraphs, lists and code blocks; inline code is kept, links show their text. */
function markdownSection(text, anchor) {
  const lines = text.split("\n");
  let start = 0;
  let level = 0;
  if (anchor) {
    start = lines.findIndex((line) => /^#{1,6} /.test(line) && slug(line.replace(/^#+ /, "")) === anchor);
    if (start < 0) return [element("p", { class: "error" }, `No section #${anchor} in this page.`)];
    level = lines[start].indexOf(" ");
  }
  const inline = (line) => withCode(line.replace(/\[([^\]]+)\]\([^)]+\)/g, "$1").replace(/\*\*([^*]+)\*\*/g, "$1"));
  const out = [];
  let paragraph = [];
  let list = null;
  let code = null;
  const endParagraph = () => {
    if (paragraph.length) out.push(element("p", {}, inline(paragraph.join(" "))));
    paragraph = [];
  };
  for (const [index, line] of lines.slice(start).entries()) {
    if (code) {
      if (line.startsWith("```")) { out.push(element("pre", {}, code.join("\n"))); code = null; } else code.push(line);
      continue;
    }
    const heading = line.match(/^(#{1,6}) (.*)/);
    if (heading && index > 0 && level && heading[1].length <= level) break;
    if (line.startsWith("```")) { endParagraph(); list = null; code = []; continue; }
    if (line.startsWith("|")) {  // a table, as its text
      endParagraph();
      list = null;
      if (!(out.at(-1) instanceof HTMLPreElement && out.at(-1).classList.contains("table"))) out.push(element("pre", { class: "table" }));
      if (!/^\|[\s:|-]+\|$/.test(line)) out.at(-1).append(`${line}\n`);
      continue;
    }
    if (heading) { endParagraph(); list = null; out.push(element(heading[1].length <= 2 ? "h3" : "h4", {}, inline(heading[2]))); continue; }
    if (/^\s*[-*] /.test(line)) {
      endParagraph();
      if (!list) { list = element("ul", {}); out.push(list); }
      list.append(element("li", {}, inline(line.replace(/^\s*[-*] /, ""))));
      continue;
    }
    if (!line.trim() || line.startsWith("<!--")) { endParagraph(); list = null; continue; }
    if (list && /^\s+/.test(line)) { list.lastChild.append(" ", ...inline(line.trim())); continue; }
    list = null;
    paragraph.push(line.trim());
  }
  endParagraph();
  return out;
}

// ---------------------------------------------------------------------------------------------- loading and live updates

async function loadApps() {
  state.apps = (await api("/_mock/apps")).apps;
  renderApps();
}

async function loadEverything() {
  state.info = await api("/_mock/info");
  renderOverview();
  await loadApps();
  await Promise.all([lists.devices.load(), lists.events.load(), lists.requests.load(), loadFaults(), checks.load(), loadPushes()]);
  preselectPushDevice().catch(showFailure);
  if (!state.routed) {
    // The item the URL names (a link pasted into a bug report), once the data it needs is there.
    state.routed = true;
    await route();
  }
  refreshDrawer();
}

// ---------------------------------------------------------------------------------------------- URLs

/** The URL of a device, a request, a push or a finding: what the console shows when it is opened. */
const urls = {
  device: (token, app) => `#devices/${encodeURIComponent(token)}${app ? `?app=${encodeURIComponent(app)}` : ""}`,
  request: (id) => `#requests/${id}`,
  push: (id) => `#push/${id}`,
  finding: (id) => `#checks/${encodeURIComponent(id)}`,
};

/** Shows what the URL names: a view, and the item after its slash (#devices/<token>?app=<key>, #requests/<id>,
 * #push/<id>, #checks/<finding id>). Back and forward come here too. */
async function route() {
  const hash = location.hash.slice(1);
  const slash = hash.indexOf("/");
  const view = slash < 0 ? hash : hash.slice(0, slash);
  const item = slash < 0 ? "" : hash.slice(slash + 1);
  showView(view);
  if (!item) {
    if (state.drawer) hideDrawer();
    return;
  }
  if (view === "devices") {
    const [token, query] = item.split("?app=");
    const app = query && decodeURIComponent(query);
    const key = `devices:${app}\u0000${decodeURIComponent(token)}`;
    if (state.drawer && (state.drawer.key === key || (!app && state.drawer.token === decodeURIComponent(token)))) return;
    if (app) return openDevice({ registrationToken: decodeURIComponent(token), application: { integrationKey: app } });
    try {
      openDevice(await api(`/_mock/devices/${token}`));
    } catch (failure) {
      openDrawer(`devices:?${token}`, decodeURIComponent(token), async () => [element("p", { class: "error" }, failure.message)]);
    }
  } else if (view === "requests") {
    if (!state.drawer || state.drawer.key !== `requests:${item}`) openRequest(item);
  } else if (view === "push") {
    if (state.drawer) hideDrawer();
    try {
      drawPush(await api(`/_mock/push/${encodeURIComponent(item)}`));
    } catch (failure) {
      $("#push-id").textContent = failure.message;
      $("#payloads").replaceChildren();
      $("#push-result").hidden = false;
    }
    $("#push-result").scrollIntoView();
  } else if (view === "checks") {
    if (state.drawer) hideDrawer();
    const id = decodeURIComponent(item);
    for (const node of $$("[data-testid=check-finding]")) node.classList.toggle("linked", node.dataset.id === id);
    const node = $$("[data-testid=check-finding]").find((candidate) => candidate.dataset.id === id);
    if (node) node.scrollIntoView({ block: "center" });
  }
}

// ---------------------------------------------------------------------------------------------- export, import

/** Downloads GET /_mock/state's snapshot. */
async function exportState() {
  const response = await fetch("/_mock/state", { headers: state.token ? { Authorization: `Bearer ${state.token}` } : {} });
  if (!response.ok) return showImport(`Export failed: ${response.status}`, true);
  const anchor = element("a", { href: URL.createObjectURL(await response.blob()), download: "campaign-mock-state.json" });
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
}

/** Replaces the state with a snapshot file (PUT /_mock/state); a refusal is shown in the server's words. */
async function importState(event) {
  const file = event.target.files[0];
  event.target.value = "";
  if (!file) return;
  if (!confirm(`Replace everything stored with ${file.name}? Devices, events, pushes and fault rules are replaced; no device stays trusted; the checks start afresh.`)) return;
  try {
    const counts = await api("/_mock/state", { method: "PUT", body: await file.text() });
    showImport(`Imported ${file.name}: ${plural(counts.applications, "application")}, ${plural(counts.devices, "device")}, `
      + `${plural(counts.messages, "message")}, ${plural(counts.events, "event")}, ${plural(counts.faults, "fault rule")}.`, false);
  } catch (failure) {
    showImport(`Not imported, nothing changed: ${failure.message}`, true);
  }
}

function showImport(text, failed) {
  const notice = $("#state-notice");
  notice.textContent = text;
  notice.className = failed ? "error" : "muted";
  notice.hidden = false;
}

function setStatus(live) {
  const status = $("#status");
  status.textContent = live ? "live" : "offline";
  status.className = `status ${live ? "live" : "offline"}`;
}

/** A registration event as a device row: the event carries the device's fields and params. */
function connect() {
  if (state.source) state.source.close();
  const query = state.token ? `?access_token=${encodeURIComponent(state.token)}` : "";
  const source = new EventSource(`/_mock/stream${query}`);
  state.source = source;
  source.onopen = () => setStatus(true);
  // The browser reconnects by itself (with Last-Event-ID); the indicator shows the gap.
  source.onerror = () => setStatus(false);
  // "open" is both a tracking event and EventSource's own connection event (which has no data).
  const handle = (type, body) => source.addEventListener(type, (event) => {
    if (typeof event.data === "string") body(JSON.parse(event.data));
  });
  // The device comes as the device list shows it (after its registration, which changed its history).
  handle("device", (device) => lists.devices.live(device, device.registrationCount === 1));
  handle("registration", (item) => drawerChanged(item.registrationToken));
  for (const type of ["receive", "open"]) {
    handle(type, (item) => {
      lists.events.live(item);
      drawerChanged((item.linked || {}).registrationToken);
    });
  }
  handle("request", (item) => lists.requests.live(item));
  handle("push", (item) => { for (const message of item.messages || []) drawerChanged(message.registrationToken); });
  handle("send", (item) => showSend(item));
  handle("fault", () => loadFaults());
  handle("check", (item) => checks.apply(item));
  handle("app", () => loadApps());
  for (const type of ["reset", "gap"]) handle(type, () => loadEverything());
  // The server stops, or cuts off a reader that fell behind: the browser reconnects with Last-Event-ID.
  for (const type of ["shutdown", "overflow"]) source.addEventListener(type, () => setStatus(false));
}

async function start() {
  try {
    await loadEverything();
  } catch (failure) {
    if (failure instanceof Unauthorized) return askForToken(failure.message);
    setStatus(false);
    setTimeout(start, 2000);
    return;
  }
  connect();
}

function askForToken(message) {
  const dialog = $("#token-dialog");
  if (dialog.open) return;
  $("#token-error").textContent = state.token ? message : "";
  $("#token-error").hidden = !state.token;
  dialog.showModal();
}

// ---------------------------------------------------------------------------------------------- wiring

$("#token-form").addEventListener("submit", () => {
  state.token = $("#token-input").value.trim();
  sessionStorage.setItem("campaign-mock-token", state.token);
  start();
});
$("#reset").addEventListener("click", () => $("#reset-dialog").showModal());
$("#reset-dialog").addEventListener("close", async () => {
  if ($("#reset-dialog").returnValue === "reset") {
    await api("/_mock/reset", { method: "POST" });
    closeDrawer();
    state.pushDevice = null;
    await loadEverything();
  }
});
$("#app-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const { identifier, ...data } = Object.fromEntries(new FormData(event.target));
  if (!data.name) delete data.name;
  if (identifier.trim()) data[identifierField(data.platform)] = identifier.trim();
  if (await saveApp(() => api("/_mock/apps", { method: "POST", body: data }))) event.target.reset();
});
searchAs($("#device-search"), lists.devices);
searchAs($("#event-message"), lists.events);
searchAs($("#request-status"), lists.requests);
searchAs($("#request-app"), lists.requests);
$("#event-type").addEventListener("change", () => lists.events.load().catch(showFailure));
$("#request-endpoint").addEventListener("change", () => lists.requests.load().catch(showFailure));
for (const filter of ["#checks-severity", "#checks-app"]) $(filter).addEventListener("change", () => checks.render());
$("#drawer-close").addEventListener("click", closeDrawer);
document.addEventListener("keydown", (event) => {
  if (event.key === "Escape" && state.drawer && !$("dialog[open]")) closeDrawer();
});
wirePushDevicePicker();
$("#push-form").addEventListener("input", renderPreview);
$("#push-form").addEventListener("submit", composePush);
$("#fault-form").addEventListener("submit", addFault);
$("#export-state").addEventListener("click", exportState);
$("#import-state").addEventListener("change", importState);
window.addEventListener("hashchange", () => route().catch(showFailure));
showView(location.hash.slice(1).split("/")[0]);
renderPreview();
start();

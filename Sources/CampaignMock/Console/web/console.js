// campaign-mock console: everything it shows comes from the admin API (/_mock/…) and the event stream
// (/_mock/stream). No framework, no build step, no request leaves this server.
"use strict";

const state = { token: sessionStorage.getItem("campaign-mock-token") || "", info: null, apps: [], devices: new Map(),
  source: null, lastPush: null };
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
  for (const child of children.flat()) {
    if (child !== undefined && child !== null) node.append(child instanceof Node ? child : document.createTextNode(child));
  }
  return node;
}

function time(iso) {
  return iso ? iso.replace("T", " ").replace("Z", "").slice(11, 23) : "";
}

class Unauthorized extends Error {}

async function api(path, options = {}) {
  const headers = Object.assign({ Accept: "application/json" }, options.headers || {});
  if (state.token) headers.Authorization = `Bearer ${state.token}`;
  if (options.body !== undefined && typeof options.body !== "string") {
    options = Object.assign({}, options, { body: JSON.stringify(options.body) });
    headers["Content-Type"] = "application/json";
  }
  const response = await fetch(path, Object.assign({}, options, { headers }));
  if (response.status === 401) throw new Unauthorized("the admin token is missing or wrong");
  const text = await response.text();
  const data = text ? JSON.parse(text) : null;
  if (!response.ok) throw new Error((data && data.error) || `${response.status}`);
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

function codeBlock(title, text, fileName) {
  const copyButton = element("button", { type: "button", class: "small", onclick: () => copy(text, copyButton) }, "Copy");
  const actions = [copyButton];
  if (fileName) actions.push(element("button", { type: "button", class: "small", onclick: () => download(fileName, text) }, "Download"));
  return element("div", { class: "payload" }, element("h4", {}, title, element("span", {}, actions)), element("pre", {}, text));
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

// ---------------------------------------------------------------------------------------------- views

function showView(name) {
  const view = $$("[data-view-panel]").some((panel) => panel.dataset.viewPanel === name) ? name : "overview";
  for (const panel of $$("[data-view-panel]")) panel.hidden = panel.dataset.viewPanel !== view;
  for (const link of $$("nav a")) link.toggleAttribute("aria-current", link.dataset.view === view);
  if (view === "push") renderDeviceChoices();
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
  $("#ca").hidden = !info.certificateAuthorityFingerprint;
  $("#ca-fingerprint").textContent = info.certificateAuthorityFingerprint || "";
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

function renderApps() {
  $("#apps").replaceChildren(...state.apps.map((app) => {
    const copyButton = element("button", { type: "button", class: "small", onclick: () => copy(app.integrationKey, copyButton) }, "Copy");
    const toggle = element("input", { type: "checkbox", checked: app.enabled, "aria-label": `Enable ${app.name}`,
      onchange: async () => {
        await api(`/_mock/apps/${encodeURIComponent(app.integrationKey)}`, { method: "PUT", body: { enabled: toggle.checked } });
        await loadApps();
      } });
    return element("tr", {}, element("td", {}, app.name), element("td", {}, app.platform),
      element("td", {}, element("code", {}, app.integrationKey), " ", copyButton), element("td", {}, toggle));
  }));
  renderSnippets();
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
  const aepNote = secure ? "" : "// The AEP extension always uses https://: start the server with --tls auto.\n";
  const snippets = [
    ["iOS, Campaign SDK (legacy), simulator", `Neolane_SDK *nl = [Neolane_SDK getInstance];\n[nl setMarketingHost:@"http://${simulatorHost}/"];\n[nl setTrackingHost:@"http://${simulatorHost}/"];\n[nl setIntegrationKey:@"${ios.integrationKey}"];`],
    ["iOS, AEP Campaign Classic extension, simulator", `${aepNote}MobileCore.updateConfigurationWith(configDict: [\n  "campaignclassic.marketingServer": "${secure ? `localhost:${secure.port}` : simulatorHost}",\n  "campaignclassic.trackingServer": "${secure ? `localhost:${secure.port}` : simulatorHost}",\n  "campaignclassic.ios.integrationKey": "${ios.integrationKey}",\n  "global.privacy": "optedin"\n])`],
    ["Android, Campaign SDK (legacy), emulator", `Neolane.getInstance().setMarketingHost("${emulator}/");\nNeolane.getInstance().setTrackingHost("${emulator}/");\nNeolane.getInstance().setIntegrationKey("${android.integrationKey}");`],
    ["Android, AEP Campaign Classic extension, emulator", `${aepNote}MobileCore.updateConfiguration(mapOf(\n  "campaignclassic.marketingServer" to "${emulatorSecure ? new URL(emulatorSecure).host : new URL(emulator).host}",\n  "campaignclassic.trackingServer" to "${emulatorSecure ? new URL(emulatorSecure).host : new URL(emulator).host}",\n  "campaignclassic.android.integrationKey" to "${android.integrationKey}",\n  "global.privacy" to "optedin"\n))`],
  ];
  $("#snippets").replaceChildren(...snippets.map(([title, text]) => codeBlock(title, text)));
}

function deviceKey(device) {
  return `${device.application.integrationKey}\u0000${device.registrationToken}`;
}

function renderDevices() {
  const filter = $("#device-filter").value.trim().toLowerCase();
  const devices = [...state.devices.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
  const shown = devices.filter((device) => !filter || [device.registrationToken, device.userKey, device.application.integrationKey,
    device.application.name].some((text) => (text || "").toLowerCase().includes(filter)));
  $("#device-count").textContent = `(${devices.length})`;
  $("#devices").replaceChildren(...shown.map((device) => {
    const row = element("tr", { tabindex: 0, "data-testid": "device-row", dataset: { token: device.registrationToken },
      onclick: () => openDevice(device), onkeydown: (event) => { if (event.key === "Enter") openDevice(device); } },
      element("td", {}, device.application.name), element("td", {}, device.application.platform),
      element("td", {}, element("code", {}, device.registrationToken)), element("td", {}, device.userKey || ""),
      element("td", {}, (device.params || []).map((param) => `${param.name}=${param.value}`).join(", ")),
      element("td", {}, time(device.updatedAt)));
    if (device.fresh) row.classList.add("fresh");
    return row;
  }));
  for (const device of devices) delete device.fresh;
}

async function openDevice(device) {
  const token = encodeURIComponent(device.registrationToken);
  const app = encodeURIComponent(device.application.integrationKey);
  const [full, events] = await Promise.all([api(`/_mock/devices/${token}?app=${app}`),
    api(`/_mock/events?token=${token}&limit=1000`)]);
  const detail = $("#device-detail");
  const history = (full.history || []).map((entry) => element("tr", {}, element("td", {}, time(entry.receivedAt)),
    element("td", {}, (entry.changes || []).join(", ")), element("td", {}, entry.userKey || ""),
    element("td", {}, (entry.params || []).map((param) => `${param.name}=${param.value}`).join(", "))));
  const messages = (full.messages || []).map((message) => element("tr", {}, element("td", {}, message.messageId),
    element("td", {}, message.deliveryId), element("td", {}, time(message.sentAt)), element("td", {}, time(message.receivedAt)),
    element("td", {}, time(message.openedAt))));
  const hits = events.events.map((event) => element("tr", {}, element("td", {}, time(event.receivedAt)),
    element("td", {}, element("span", { class: `badge ${event.type}` }, event.type)), element("td", {}, element("code", {}, event.rawId))));
  detail.replaceChildren(
    element("h3", {}, `${device.application.name} · `, element("code", {}, device.registrationToken)),
    element("h4", {}, "Registration history"),
    element("table", {}, element("thead", {}, element("tr", {}, ["Received", "Changed", "userKey", "Params"].map((h) => element("th", {}, h)))), element("tbody", {}, history)),
    element("h4", {}, "Pushes"),
    messages.length ? element("table", {}, element("thead", {}, element("tr", {}, ["_mId", "_dId", "Sent", "Received", "Opened"].map((h) => element("th", {}, h)))), element("tbody", {}, messages))
      : element("p", { class: "muted" }, "None composed for this device."),
    element("h4", {}, "Tracking events"),
    hits.length ? element("table", {}, element("tbody", {}, hits)) : element("p", { class: "muted" }, "None yet."));
  detail.hidden = false;
  detail.scrollIntoView({ behavior: "smooth", block: "nearest" });
}

function eventRow(event) {
  const linked = event.linked || {};
  return element("tr", { "data-testid": "event-row", dataset: { deliveryId: event.deliveryId }, class: event.fresh ? "fresh" : null },
    element("td", {}, time(event.receivedAt)), element("td", {}, element("span", { class: `badge ${event.type}` }, event.type)),
    element("td", {}, element("code", {}, event.messageUuid || event.messageHex || "")), element("td", {}, event.deliveryId),
    element("td", {}, linked.registrationToken ? element("a", { href: "#devices", onclick: () => {
      const device = [...state.devices.values()].find((d) => d.registrationToken === linked.registrationToken);
      if (device) setTimeout(() => openDevice(device));
    } }, linked.registrationToken) : element("span", { class: "muted" }, "not issued here")),
    element("td", {}, linked.messageId ? `_mId ${linked.messageId}` : ""));
}

function requestRow(entry) {
  const bad = entry.status >= 400 || entry.status === 0;
  return element("tr", { tabindex: 0, "data-testid": "request-row", class: entry.fresh ? "fresh" : null,
    onclick: () => openRequest(entry), onkeydown: (event) => { if (event.key === "Enter") openRequest(entry); } },
    element("td", {}, time(entry.receivedAt)), element("td", {}, entry.method), element("td", {}, element("code", {}, entry.target)),
    element("td", {}, element("span", { class: bad ? "badge bad" : "badge" }, String(entry.status))), element("td", {}, entry.reason || ""),
    element("td", {}, entry.durationMs.toFixed(2)));
}

function openRequest(entry) {
  const detail = $("#request-detail");
  const headers = entry.headers.map(([name, value]) => `${name}: ${value}`).join("\n");
  detail.replaceChildren(element("h3", {}, `${entry.method} `, element("code", {}, entry.target), ` → ${entry.status}`),
    element("p", { class: "muted" }, `${entry.receivedAt} from ${entry.remoteAddress || "?"}, ${entry.durationMs.toFixed(2)} ms`
      + (entry.appKey ? `, app ${entry.appKey}` : "") + (entry.reason ? ` — ${entry.reason}` : "")),
    element("h4", {}, "Headers"), element("pre", {}, headers),
    element("h4", {}, "Body" + (entry.bodyTruncated ? " (truncated)" : "")),
    element("pre", {}, entry.bodyEncoding === "base64" ? `(base64) ${entry.body}` : prettyBody(entry.body, entry.headers)));
  detail.hidden = false;
  detail.scrollIntoView({ behavior: "smooth", block: "nearest" });
}

function prepend(tbody, row, limit = 1000) {
  tbody.prepend(row);
  while (tbody.children.length > limit) tbody.lastChild.remove();
}

// ---------------------------------------------------------------------------------------------- push

function renderDeviceChoices() {
  const select = $("#push-device");
  const current = select.value;
  const devices = [...state.devices.values()];
  select.replaceChildren(...devices.map((device) => element("option", { value: deviceKey(device) },
    `${device.application.name} · ${device.registrationToken}${device.userKey ? " · " + device.userKey : ""}`)));
  if (current) select.value = current;
  renderPreview();
}

function pushFields() {
  const form = $("#push-form");
  const data = new FormData(form);
  const device = state.devices.get(data.get("device") || "");
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

function renderPreview() {
  const { request, device } = pushFields();
  const appName = device ? device.application.name : "Your app";
  for (const phone of $$(".phone")) {
    $(".app", phone).textContent = appName;
    $(".title", phone).textContent = request.silent ? "" : request.title || "";
    $(".body", phone).textContent = request.silent ? "Silent push: nothing is shown" : request.body || "";
    $(".body", phone).classList.toggle("silent", !!request.silent);
    const media = $(".media", phone);
    media.hidden = !request.mediaUrl || !!request.silent;
    if (!media.hidden) media.src = request.mediaUrl;
  }
}

async function composePush(event) {
  event.preventDefault();
  const { request } = pushFields();
  const error = $("#push-error");
  error.hidden = true;
  try {
    const push = await api("/_mock/push", { method: "POST", body: request });
    state.lastPush = push;
    $("#push-id").textContent = `#${push.id} · delivery ${push.deliveryId}` + (push.warnings.length ? ` · ${push.warnings.join(" ")}` : "");
    const blocks = [];
    for (const message of push.messages) {
      const label = `${message.platform} ${message.registrationToken}`;
      if (message.apns) blocks.push(codeBlock(`APNs payload (${label})`, JSON.stringify(message.apns, null, 2), `campaign-mock-${message.messageId}.json`));
      if (message.apnsFile) blocks.push(codeBlock("simctl push (.apns file)", message.apnsFile, `campaign-mock-${message.messageId}.apns`));
      if (message.simctl) blocks.push(codeBlock("simctl command", message.simctl));
      if (message.fcm) blocks.push(codeBlock(`FCM HTTP v1 message (${label})`, JSON.stringify(message.fcm, null, 2), `campaign-mock-${message.messageId}-fcm.json`));
      if (message.adb) blocks.push(codeBlock("adb", message.adb.join("\n")));
      blocks.push(codeBlock("Tracking the SDK will send", `receive: ${message.tracking.receive}\nopen:    ${message.tracking.open}`));
    }
    $("#payloads").replaceChildren(...blocks);
    $("#push-result").hidden = false;
  } catch (failure) {
    error.textContent = failure.message;
    error.hidden = false;
  }
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

// ---------------------------------------------------------------------------------------------- loading and live updates

async function loadApps() {
  state.apps = (await api("/_mock/apps")).apps;
  renderApps();
}

async function loadDevice(token, app) {
  const page = await api(`/_mock/devices?token=${encodeURIComponent(token)}&app=${encodeURIComponent(app)}`);
  for (const device of page.devices) {
    device.fresh = true;
    state.devices.set(deviceKey(device), device);
  }
  renderDevices();
  if (!$("#view-push").hidden) renderDeviceChoices();
}

async function loadEverything() {
  state.info = await api("/_mock/info");
  renderOverview();
  await loadApps();
  const [devices, events, requests] = await Promise.all([api("/_mock/devices?limit=1000"), api("/_mock/events?limit=1000"),
    api("/_mock/requests?limit=1000")]);
  state.devices = new Map(devices.devices.map((device) => [deviceKey(device), device]));
  renderDevices();
  $("#events").replaceChildren(...events.events.reverse().map(eventRow));
  $("#requests").replaceChildren(...requests.requests.reverse().map(requestRow));
  await loadFaults();
  renderDeviceChoices();
}

function setStatus(live) {
  const status = $("#status");
  status.textContent = live ? "live" : "offline";
  status.className = `status ${live ? "live" : "offline"}`;
}

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
  handle("registration", (item) => loadDevice(item.registrationToken, item.integrationKey));
  for (const type of ["receive", "open"]) {
    handle(type, (item) => {
      item.fresh = true;
      prepend($("#events"), eventRow(item));
    });
  }
  handle("request", (item) => {
    item.fresh = true;
    prepend($("#requests"), requestRow(item));
  });
  handle("fault", () => loadFaults());
  handle("app", () => loadApps());
  handle("push", () => {});
  for (const type of ["reset", "gap"]) handle(type, () => loadEverything());
  source.addEventListener("shutdown", () => setStatus(false));
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
    await loadEverything();
  }
});
$("#app-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const data = Object.fromEntries(new FormData(event.target));
  if (!data.name) delete data.name;
  await api("/_mock/apps", { method: "POST", body: data });
  event.target.reset();
  await loadApps();
});
$("#device-filter").addEventListener("input", renderDevices);
$("#push-form").addEventListener("input", renderPreview);
$("#push-form").addEventListener("submit", composePush);
$("#fault-form").addEventListener("submit", addFault);
window.addEventListener("hashchange", () => showView(location.hash.slice(1)));
showView(location.hash.slice(1));
start();

// Drives Adobe's acc-js-sdk (unmodified, from ACC_JS_SDK_DIR) against a live campaign-mock and prints one
// JSON object: flow name -> "ok", or the error. Run by test_acc_js_sdk.py, which checks the result.
//
//   node acc_js_sdk_flows.js URL SDK_INDEX_JS
"use strict";
const [url, sdkPath] = process.argv.slice(2);
const sdk = require(sdkPath);
const results = {};

async function flow(name, body) {
  try {
    const outcome = await body();
    results[name] = outcome === undefined ? "ok" : outcome;
  } catch (error) {
    results[name] = `error: ${error && (error.faultString || error.message || error)}`.slice(0, 400);
  }
}

function check(condition, what) {
  if (!condition) throw new Error(`unexpected: ${what}`);
}

(async () => {
  const client = await sdk.init(sdk.ConnectionParameters.ofUserAndPassword(url, "admin", "admin"));
  const NLWS = client.NLWS;

  await flow("logon with user and password", async () => {
    await client.logon();
    check(client.isLogged(), "not logged");
    check(client.getSessionInfo().serverInfo.instanceName === "campaign-mock", "instance name");
  });
  await flow("hasPackage", async () => {
    check(client.application.hasPackage("nms:mobileApp"), "nms:mobileApp missing");
    check(client.application.hasPackage("nms:messageCenter"), "nms:messageCenter missing");
    check(!client.application.hasPackage("nms:social"), "nms:social should not be installed");
  });
  for (const id of JSON.parse(process.env.CATALOGUE_SCHEMAS)) {
    await flow(`getSchema ${id}`, async () => {
      const schema = await client.getSchema(id, "xml");
      check(schema, `${id} not found`);
      check(`${schema.getAttribute("namespace")}:${schema.getAttribute("name")}` === id, `${id} has another name`);
    });
  }
  await flow("getSchema of an unknown schema is null", async () => {
    check((await client.getSchema("nms:noSuchSchema")) === null, "not null");
  });
  await flow("getOption XtkDatabaseId", async () => {
    const value = await client.getOption("XtkDatabaseId", false);
    check(typeof value === "string" && value.length > 0, `value ${value}`);
  });
  await flow("setOption then getOption", async () => {
    await client.setOption("CampaignMockTestOption", "hello");
    client.clearOptionCache();
    check((await client.getOption("CampaignMockTestOption", false)) === "hello", "value not kept");
  });
  await flow("getOption of an unknown option", async () => {
    const value = await client.getOption("NoSuchOption", false);
    check(value === "" || value === null || value === undefined, `value ${value}`);
  });
  await flow("getServerTime", async () => {
    const time = await NLWS.xtkSession.getServerTime();
    check(Math.abs(new Date(time).getTime() - Date.now()) < 60000, `time ${time}`);
  });
  await flow("getNewIdsEx", async () => {
    const ids = await NLWS.xml.xtkSession.getNewIdsEx(3, "XtkNewId");
    check(ids && ids.getElementsByTagName("id").length === 3, "not three ids");
  });
  await flow("executeQuery finds the device registered over HTTP", async () => {
    const query = NLWS.xtkQueryDef.create({
      schema: "nms:appSubscriptionRcp", operation: "select",
      select: { node: [{ expr: "@registrationToken" }, { expr: "@userKey" }, { expr: "[mobileApp/@uuid]" }] },
      where: { condition: [{ expr: "@registrationToken = 'acc-js-sdk-token'" }] },
    });
    const result = await query.executeQuery();
    const rows = result.appSubscriptionRcp;
    const row = Array.isArray(rows) ? rows[0] : rows;
    check(row && row.userKey === "node@example.com", `rows ${JSON.stringify(result)}`);
  });
  await flow("executeQuery on an attribute the schema lacks is a fault", async () => {
    const query = NLWS.xtkQueryDef.create({
      schema: "nms:recipient", operation: "select", select: { node: [{ expr: "@noSuchAttribute" }] },
    });
    try {
      await query.executeQuery();
    } catch (error) {
      check(`${error.faultString} ${error.detail} ${error.message}`.includes("noSuchAttribute"), "fault does not name it");
      return;
    }
    throw new Error("no fault");
  });
  await flow("subscribe and unsubscribe", async () => {
    await NLWS.nmsSubscription.subscribe("Demo Android app", { email: "sub@example.com" }, true);
    const count = async () => (await NLWS.xtkQueryDef.create({
      schema: "nms:subscription", operation: "count",
      where: { condition: [{ expr: "[recipient/@email] = 'sub@example.com'" }] },
    }).executeQuery()).count;
    check(Number(await count()) === 1, "not subscribed");
    await NLWS.nmsSubscription.unsubscribe("Demo Android app", { email: "sub@example.com" });
    check(Number(await count()) === 0, "still subscribed");
  });
  await flow("pushEvent for a registered device", async () => {
    const id = await NLWS.nmsRtEvent.pushEvent({
      wishedChannel: 42, registrationToken: "acc-js-sdk-token",
      mobileApp: { uuid: "campaign-mock-demo-android" }, ctx: { title: "Hi", body: "from acc-js-sdk" },
    });
    check(Number(id) > 0, `plId ${id}`);
    return `ok ${id}`;
  });
  await flow("write then query a recipient", async () => {
    await NLWS.xtkSession.write({
      xtkschema: "nms:recipient", _operation: "insert", email: "written@example.com", firstName: "Ada",
    });
    const recipient = await NLWS.xtkQueryDef.create({
      schema: "nms:recipient", operation: "get",
      select: { node: [{ expr: "@email" }, { expr: "@firstName" }] },
      where: { condition: [{ expr: "@email = 'written@example.com'" }] },
    }).executeQuery();
    check(recipient.firstName === "Ada", JSON.stringify(recipient));
  });
  await flow("write to a schema that is not writable is a fault naming the writable ones", async () => {
    try {
      await NLWS.xtkSession.write({ xtkschema: "xtk:folder", _operation: "insert", name: "x" });
    } catch (error) {
      check(String(error.faultString || error.detail || error.message).includes("nms:recipient") ||
        String(error.detail).includes("nms:recipient"), String(error.detail));
      return;
    }
    throw new Error("no fault");
  });
  await flow("pushEvent for e-mail, then get the rtEvent by @id", async () => {
    const id = await NLWS.nmsRtEvent.pushEvent({
      wishedChannel: 0, type: "welcome", email: "welcome@example.com", ctx: { $firstName: "Ada" },
    });
    check(Number(id) > 0, `plId ${id}`);
    const event = await NLWS.xtkQueryDef.create({
      schema: "nms:rtEvent", operation: "get",
      select: { node: [{ expr: "@id" }, { expr: "@email" }, { expr: "@status" }, { expr: "@type" }] },
      where: { condition: [{ expr: `@id=${id}` }] },
    }).executeQuery();
    check(event.email === "welcome@example.com" && event.type === "welcome", JSON.stringify(event));
  });
  await flow("installPackage (XML) makes its option readable", async () => {
    const doc = sdk.DomUtil.newDocument("pkgDesc");
    const pkg = doc.createElement("package");
    pkg.setAttribute("namespace", "cus");
    pkg.setAttribute("name", "sdktest");
    doc.documentElement.appendChild(pkg);
    const entities = doc.createElement("entities");
    entities.setAttribute("schema", "xtk:option");
    pkg.appendChild(entities);
    const option = doc.createElement("option");
    option.setAttribute("name", "FromPackage");
    option.setAttribute("dataType", "6");
    option.setAttribute("stringValue", "installed");
    entities.appendChild(option);
    await NLWS.xml.xtkBuilder.installPackage(doc);
    check((await client.getOption("FromPackage", false)) === "installed", "option not installed");
  });
  await flow("installPackage (JSON) makes its enumeration queryable", async () => {
    await NLWS.xtkBuilder.installPackage({
      package: { namespace: "cus", name: "enums", entities: { schema: "xtk:enum", enum: {
        name: "eventType", value: [{ name: "welcome", label: "Welcome" }, { name: "reset", label: "Password reset" }],
      } } },
    });
    const values = await NLWS.xtkQueryDef.create({
      schema: "xtk:enumValue", operation: "select", select: { node: [{ expr: "@name" }, { expr: "@label" }] },
      where: { condition: [{ expr: "[enum/@name]='eventType'" }] },
    }).executeQuery();
    check(JSON.stringify(values.enumValue.map((v) => v.name)) === '["welcome","reset"]', JSON.stringify(values));
  });
  await flow("executeQuery: getIfExists miss, empty select, paging, analyze, alias", async () => {
    const mapping = (operation, extra) => NLWS.xtkQueryDef.create(Object.assign({
      schema: "nms:deliveryMapping", operation,
      select: { node: [{ expr: "@name" }, { expr: "[storage/@exclusionType]", analyze: true }] },
    }, extra)).executeQuery();
    check((await mapping("getIfExists", { where: { condition: [{ expr: "@name='none'" }] } })) === null, "miss");
    const empty = await mapping("select", { where: { condition: [{ expr: "@name='none'" }] } });
    check(JSON.stringify(empty) === '{"deliveryMapping":[]}' || JSON.stringify(empty) === "{}", JSON.stringify(empty));
    const page = await mapping("select", { lineCount: 1, startLine: 1, orderBy: { node: [{ expr: "@name" }] } });
    check(page.deliveryMapping.length === 1 && page.deliveryMapping[0].name === "mapRecipient", JSON.stringify(page));
    check(page.deliveryMapping[0].storage.exclusionTypeName === "quarantine", JSON.stringify(page));
    const aliased = await NLWS.xtkQueryDef.create({
      schema: "nms:deliveryMapping", operation: "get",
      select: { node: [{ expr: "[storage/@exclusionType]", alias: "@exclusion" }] },
      where: { condition: [{ expr: "@name='mapRecipient'" }] },
    }).executeQuery();
    check(aliased.exclusion === "2", JSON.stringify(aliased));
  });
  await flow("selectAll, buildQuery and buildQueryEx", async () => {
    const query = NLWS.xtkQueryDef.create({
      schema: "xtk:option", operation: "get", where: { condition: [{ expr: "@name='XtkDatabaseId'" }] },
    });
    await query.selectAll(false);
    const option = await query.executeQuery();
    check(option.name === "XtkDatabaseId" && option.dataType === "6", JSON.stringify(option));
    check(String(await query.buildQuery()).startsWith("SELECT"), "buildQuery");
    const [sql, format] = await query.buildQueryEx();
    check(String(sql).startsWith("SELECT") && String(format).includes("string"), `${sql} / ${format}`);
  });
  await flow("mcPing", async () => {
    const ping = await client.mcPing();
    check(ping.status === "Ok", JSON.stringify(ping));
  });
  await flow("ping and test", async () => {
    check((await client.ping()).status === "OK", "ping");
    check((await client.test()).status === "OK", "test");
  });
  const sessionToken = client._sessionToken;
  const securityToken = client._securityToken;

  await flow("an installed package is listed at the next logon", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofUserAndPassword(url, "admin", "admin"));
    await other.logon();
    check(other.application.hasPackage("cus:sdktest"), "cus:sdktest missing");
    await other.logoff();
  });
  await flow("logon with a session and security token", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofSessionAndSecurityToken(url, sessionToken, securityToken));
    await other.logon();
    await other.NLWS.xtkSession.getOption("XtkDatabaseId");
  });
  await flow("logon with a bearer token (BearerTokenLogon)", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofBearerToken(url, "campaign-mock-bearer-token"));
    await other.logon();
    check(other.isLogged(), "not logged");
    await other.NLWS.xtkSession.getOption("XtkDatabaseId");
    await other.logoff();
  });
  await flow("IMS bearer token on every call", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofImsBearerToken(url, "campaign-mock-bearer-token",
      { sessionInfo: true }));
    await other.logon();
    check(other.application.hasPackage("nms:mobileApp"), "no packages from GetUserInfo");
    await other.NLWS.xtkSession.getOption("XtkDatabaseId");
    check((await other.mcPing()).status === "Ok", "mcPing");
  });
  await flow("a wrong bearer token is refused", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofImsBearerToken(url, "not-a-token"));
    await other.logon();
    try {
      await other.NLWS.xtkSession.getOption("XtkDatabaseId");
    } catch (error) {
      check(error.statusCode === 401 || String(error.message).includes("XSV-350008"), String(error.message));
      return;
    }
    throw new Error("accepted");
  });
  await flow("anonymous getServerTime", async () => {
    const other = await sdk.init(sdk.ConnectionParameters.ofAnonymousUser(url));
    await other.logon();
    await other.NLWS.xtkSession.getServerTime();
  });
  await flow("logoff", async () => {
    await client.logoff();
    check(!client.isLogged(), "still logged");
  });
  process.stdout.write(JSON.stringify(results));
})();

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import { startEmulator } from "../../src/emulator/index.ts";
import { demoGuid } from "../../src/emulator/seeds/demo-catalogue.ts";
import { parseXml, type XmlElement } from "../../src/emulator/soap/xml.ts";
import { type Json, useEmulator } from "../helpers/raw.ts";
import {
  all,
  envelope11,
  envelope12,
  find,
  SERVICE_NS as NS,
  post as postTo,
  resultOf as result,
  SOAP12,
  soap11 as soap11At,
} from "../helpers/soap.ts";

/*
 * The web services real instances serve beside the REST interface (general.asmx, search.asmx,
 * field.asmx), over real HTTP, in the shapes public clients send and read: SOAP 1.1 with a
 * SOAPAction header, SOAP 1.2 with the action in the content type, and the HTTP-form variant.
 */

describe("web services (SOAP)", () => {
  const { raw, emulator } = useEmulator({ seed: "demo-dev" });

  const post = (path: string, body: string, headers: Record<string, string>) =>
    postTo(`${emulator().url}${path}`, body, headers);
  const soap11 = (service: string, operation: string, params: Record<string, string>, raw = "") =>
    soap11At(emulator().url, service, operation, params, raw);

  const login = (userName = "sysadmin", password = "Password1!") =>
    result(
      soap11("general", "CreateUserSessionFromInstance", { userName, instanceName: "Default", password }),
      "CreateUserSessionFromInstance",
    );

  const field = (path: string) => {
    const found = catalogueOf(emulator().store).byGuid("fields", demoGuid(path));
    if (!found) throw new Error(`no field ${path}`);
    return found;
  };
  const moduleId = (path: string) => catalogueOf(emulator().store).byGuid("modules", demoGuid(path))?.Id;

  describe("sessions (general.asmx)", () => {
    it("SOAP 1.1: answers the token in CreateUserSessionFromInstanceResult, and it works on REST", async () => {
      const token = await login();
      expect(token).toMatch(/^[0-9A-F]{32}$/);
      const users = await raw().read("/core/system/user?$select=UserName&$top=1", token);
      expect(users.status).toBe(200);
    });

    it("SOAP 1.2: the action in the content type, the answer in a 1.2 envelope", async () => {
      const answer = await post(
        "/ws/general.asmx",
        envelope12("CreateUserSessionFromInstance", {
          userName: "sysadmin",
          instanceName: "Default",
          password: "Password1!",
        }),
        {
          "content-type":
            'application/soap+xml; charset=utf-8; action="http://archer-tech.com/webservices/CreateUserSessionFromInstance"',
        },
      );
      expect(answer.status).toBe(200);
      expect(answer.contentType).toMatch(/^application\/soap\+xml/);
      const root = parseXml(answer.text);
      expect(root.ns).toBe(SOAP12);
      expect(find(root, "CreateUserSessionFromInstanceResult")?.text).toMatch(/^[0-9A-F]{32}$/);
    });

    it("the HTTP-form variant answers a <string>", async () => {
      const answer = await post(
        "/ws/general.asmx/CreateUserSessionFromInstance",
        new URLSearchParams({
          userName: "sysadmin",
          instanceName: "Default",
          password: "Password1!",
        }).toString(),
        { "content-type": "application/x-www-form-urlencoded" },
      );
      expect(answer.status).toBe(200);
      const root = parseXml(answer.text);
      expect(root).toMatchObject({ local: "string", ns: NS });
      expect(root.text).toMatch(/^[0-9A-F]{32}$/);
    });

    it("the domain variant takes usersDomain", async () => {
      const token = await result(
        soap11("general", "CreateDomainUserSessionFromInstance", {
          userName: "sysadmin",
          instanceName: "Default",
          password: "Password1!",
          usersDomain: "CORP",
        }),
        "CreateDomainUserSessionFromInstance",
      );
      expect(token).toMatch(/^[0-9A-F]{32}$/);
    });

    it("a REST token works on the web services", async () => {
      const token = await raw().token();
      const reports = await result(soap11("search", "GetReports", { sessionToken: token }), "GetReports");
      expect(parseXml(reports).local).toBe("ReportValues");
    });

    it("bad credentials are a SOAP fault (HTTP 500), with no token", async () => {
      const answer = await soap11("general", "CreateUserSessionFromInstance", {
        userName: "sysadmin",
        instanceName: "Default",
        password: "wrong",
      });
      expect(answer.status).toBe(500);
      const root = parseXml(answer.text);
      expect(find(root, "faultcode")?.text).toBe("soap:Server");
      expect(find(root, "faultstring")?.text).toMatch(/^Server was unable to process request\. ---> Invalid/);
      expect(answer.text).not.toMatch(/[0-9A-F]{32}/);
    });

    it("a SOAP 1.2 fault is a 1.2 envelope; the form variant's is text", async () => {
      const wrong = { userName: "sysadmin", instanceName: "Nowhere", password: "Password1!" };
      const soap12 = await post("/ws/general.asmx", envelope12("CreateUserSessionFromInstance", wrong), {
        "content-type": "application/soap+xml; charset=utf-8",
      });
      expect(soap12.status).toBe(500);
      expect(soap12.contentType).toMatch(/^application\/soap\+xml/);
      const root = parseXml(soap12.text);
      expect(root.ns).toBe(SOAP12);
      expect(find(root, "Value")?.text).toBe("soap:Receiver");
      expect(find(root, "Text")?.text).toMatch(/^Server was unable to process request\. ---> Invalid/);
      const form = await post(
        "/ws/general.asmx/CreateUserSessionFromInstance",
        new URLSearchParams(wrong).toString(),
        { "content-type": "application/x-www-form-urlencoded" },
      );
      expect(form.status).toBe(500);
      expect(form.contentType).toMatch(/^text\/plain/);
      expect(form.text).toMatch(/Invalid user name, instance name or password/);
      const unknown = await post("/ws/general.asmx/NoSuchOperation", "a=1", {
        "content-type": "application/x-www-form-urlencoded",
      });
      expect(unknown.status).toBe(500);
      expect(unknown.text).toMatch(/Request format is unrecognized/);
    });

    it("no fault quotes the password, also when it breaks the XML", async () => {
      const body = envelope11("CreateUserSessionFromInstance", {
        userName: "sysadmin",
        instanceName: "Default",
      }).replace(
        "</CreateUserSessionFromInstance>",
        "<password>pw&hunter2;</password></CreateUserSessionFromInstance>",
      );
      const broken = await post("/ws/general.asmx", body, { "content-type": "text/xml" });
      expect(broken.status).toBe(500);
      expect(broken.text).not.toMatch(/hunter2/);
      const wrong = await soap11("general", "CreateUserSessionFromInstance", {
        userName: "sysadmin",
        instanceName: "Default",
        password: "hunter2",
      });
      expect(wrong.status).toBe(500);
      expect(wrong.text).not.toMatch(/hunter2/);
    });

    it("a SOAPAction that names another operation than the body is a client fault", async () => {
      const answer = await post(
        "/ws/general.asmx",
        envelope11("CreateUserSessionFromInstance", { userName: "a", instanceName: "b", password: "c" }),
        { "content-type": "text/xml", soapaction: "http://archer-tech.com/webservices/GetReports" },
      );
      expect(answer.status).toBe(500);
      expect(find(parseXml(answer.text), "faultcode")?.text).toBe("soap:Client");
      expect(answer.text).toMatch(/did not recognize the value of HTTP Header SOAPAction: GetReports/);
    });

    it("refuses a DOCTYPE (no entity is ever expanded)", async () => {
      const body = `<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e "boom">]>${envelope11("GetReports", { sessionToken: "&e;" }).replace(/^<\?xml[^>]*\?>/, "")}`;
      const answer = await post("/ws/search.asmx", body, { "content-type": "text/xml" });
      expect(answer.status).toBe(500);
      expect(answer.text).toMatch(/DOCTYPE/);
    });

    it("an invalid session token is the fault real instances give", async () => {
      const answer = await soap11("search", "GetReports", { sessionToken: "0".repeat(32) });
      expect(answer.status).toBe(500);
      expect(find(parseXml(answer.text), "faultstring")?.text).toBe(
        "Server was unable to process request. ---> Invalid session token",
      );
    });

    it("the REST routes still refuse an XML body (415)", async () => {
      const token = await raw().token();
      const answer = await raw().call("/core/system/user", {
        method: "POST",
        token,
        rawBody: "<User/>",
        headers: { "content-type": "text/xml" },
      });
      expect(answer.status).toBe(415);
    });
  });

  describe("search.asmx", () => {
    function searchOptions(extra = "", display?: number[]): string {
      const risk = field("risks/risk/name");
      const fields = (display ?? [risk.Id]).map((id) => `<DisplayField>${id}</DisplayField>`).join("");
      return (
        `<SearchReport><PageSize>10</PageSize><MaxRecordCount>10</MaxRecordCount><DisplayFields>${fields}</DisplayFields>` +
        `<Criteria><ModuleCriteria><Module name="appname">${moduleId("risks")}</Module></ModuleCriteria>${extra}</Criteria></SearchReport>`
      );
    }

    async function search(token: string, options: string, pageNumber = "1"): Promise<XmlElement> {
      const text = await result(
        soap11("search", "ExecuteSearch", { sessionToken: token, searchOptions: options, pageNumber }),
        "ExecuteSearch",
      );
      return parseXml(text);
    }

    it("ExecuteSearch answers <Records count> with <Record contentId levelId moduleId><Field id type>", async () => {
      const token = await login();
      const records = await search(token, searchOptions());
      expect(records.local).toBe("Records");
      expect(records.attributes.count).toBe("2");
      const rows = all(records, "Record");
      expect(rows.map((r) => r.attributes.contentId)).toEqual(["1002", "1008"]);
      const name = field("risks/risk/name");
      expect(rows[0]?.attributes).toMatchObject({
        levelId: String(name.LevelId),
        moduleId: String(moduleId("risks")),
      });
      expect(rows[0]?.children[0]).toMatchObject({
        local: "Field",
        attributes: { id: String(name.Id), type: "1" },
        text: "Cloud provider outage",
      });
      expect(find(records, "FieldDefinition")?.attributes).toMatchObject({
        id: String(name.Id),
        name: "Risk Name",
      });
    });

    it("takes the search document in CDATA, as public clients send it", async () => {
      const token = await login();
      const text = await result(
        soap11(
          "search",
          "ExecuteSearch",
          { sessionToken: token, pageNumber: "1" },
          `<searchOptions><![CDATA[${searchOptions()}]]></searchOptions>`,
        ),
        "ExecuteSearch",
      );
      expect(parseXml(text).attributes.count).toBe("2");
    });

    it("filters with TextFilterCondition and ValueListFilterCondition; values lists read as ListValues", async () => {
      const token = await login();
      const name = field("risks/risk/name");
      const category = field("risks/risk/category");
      const compliance = category.ValuesListValues.find((v) => v.Name === "Compliance")?.Id;
      const text = await search(
        token,
        searchOptions(
          `<Filter><Conditions><TextFilterCondition><Operator>Contains</Operator><Field name="Risk Name">${name.Id}</Field><Value>ACCESS</Value></TextFilterCondition></Conditions></Filter>`,
        ),
      );
      expect(all(text, "Record").map((r) => r.attributes.contentId)).toEqual(["1008"]);
      const byValue = await search(
        token,
        searchOptions(
          `<Filter><Conditions><ValueListFilterCondition><Operator>Contains</Operator><Field>${category.Id}</Field><Values><Value>${compliance}</Value></Values></ValueListFilterCondition></Conditions></Filter>`,
          [name.Id, category.Id],
        ),
      );
      const rows = all(byValue, "Record");
      expect(rows.map((r) => r.attributes.contentId)).toEqual(["1008"]);
      expect(find(rows[0] as XmlElement, "ListValue")?.attributes).toMatchObject({
        id: String(compliance),
        displayName: "Compliance",
      });
    });

    it("dates carry xmlConvertedValue; numeric and date filters compare values", async () => {
      const token = await login();
      const identified = field("risks/risk/identified");
      const score = field("risks/risk/score");
      const records = await search(
        token,
        searchOptions(
          `<Filter><Conditions><NumericFilterCondition><Operator>GreaterThan</Operator><Field>${score.Id}</Field><Value>11</Value></NumericFilterCondition>` +
            `<DateComparisonFilterCondition><Operator>GreaterThan</Operator><Field>${identified.Id}</Field><Value>2026-01-01T00:00:00Z</Value><IsTimeIncluded>TRUE</IsTimeIncluded></DateComparisonFilterCondition></Conditions></Filter>`,
          [identified.Id],
        ),
      );
      const rows = all(records, "Record");
      expect(rows.map((r) => r.attributes.contentId)).toEqual(["1002"]);
      expect(find(rows[0] as XmlElement, "Field")?.attributes.xmlConvertedValue).toBe(
        "2026-01-12T00:00:00.000Z",
      );
    });

    it("answers a SOAR connector's incident fetch as it writes it: spaces, CDATA, a date condition and a sort", async () => {
      const token = await login();
      const identified = field("risks/risk/identified");
      const name = field("risks/risk/name");
      const body =
        '<?xml version="1.0" encoding="UTF-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" ' +
        'xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">    <soap:Body>' +
        `        <ExecuteSearch xmlns="${NS}">            <sessionToken>${token}</sessionToken>            <searchOptions>` +
        "                <![CDATA[<SearchReport>                <PageSize>10</PageSize>                 <PageNumber>1</PageNumber>" +
        "                <MaxRecordCount>10</MaxRecordCount>                <ShowStatSummaries>false</ShowStatSummaries>" +
        `                <DisplayFields><DisplayField name="Risk Name">${name.Id}</DisplayField><DisplayField name="Identified Date">${identified.Id}</DisplayField></DisplayFields>` +
        `             <Criteria><ModuleCriteria><Module name="appname">${moduleId("risks")}</Module></ModuleCriteria>` +
        "<Filter><Conditions>    <DateComparisonFilterCondition>" +
        "        <Operator>GreaterThan</Operator>" +
        `        <Field name="Identified Date">${identified.Id}</Field>` +
        "        <Value>2025-01-01T00:00:00.000000Z</Value>" +
        "        <TimeZoneId>UTC Standard Time</TimeZoneId>        <IsTimeIncluded>TRUE</IsTimeIncluded>" +
        "    </DateComparisonFilterCondition ></Conditions></Filter>" +
        `<SortFields>    <SortField>        <Field>${identified.Id}</Field>        <SortType>Ascending</SortType>    </SortField ></SortFields>` +
        " </Criteria></SearchReport>]]></searchOptions><pageNumber>1</pageNumber></ExecuteSearch></soap:Body></soap:Envelope>";
      const answer = post("/ws/search.asmx", body, {
        "content-type": "text/xml; charset=utf-8",
        soapaction: `${NS}ExecuteSearch`,
      });
      const records = parseXml(await result(answer, "ExecuteSearch"));
      const rows = all(records, "Record");
      expect(rows.map((r) => r.attributes.contentId)).toEqual(["1008", "1002"]);
      const dates = rows.map(
        (r) => all(r, "Field").find((f) => f.attributes.type === "3")?.attributes.xmlConvertedValue,
      );
      expect(dates).toEqual(["2025-11-03T00:00:00.000Z", "2026-01-12T00:00:00.000Z"]);
    });

    it("pages with PageSize and pageNumber; count stays the whole match", async () => {
      const token = await login();
      const options = searchOptions().replace("<PageSize>10</PageSize>", "<PageSize>1</PageSize>");
      const second = await search(token, options, "2");
      expect(second.attributes.count).toBe("2");
      expect(all(second, "Record").map((r) => r.attributes.contentId)).toEqual(["1008"]);
    });

    it("a condition it cannot honour is a fault, never ignored", async () => {
      const token = await login();
      const answer = await soap11("search", "ExecuteSearch", {
        sessionToken: token,
        searchOptions: searchOptions("<Filter><Conditions><GeoFilterCondition/></Conditions></Filter>"),
        pageNumber: "1",
      });
      expect(answer.status).toBe(500);
      expect(answer.text).toMatch(/GeoFilterCondition is not supported/);
    });

    it("SearchRecordsByReport runs a report by GUID; GetReports lists it", async () => {
      const token = await login();
      const reports = parseXml(
        await result(soap11("search", "GetReports", { sessionToken: token }), "GetReports"),
      );
      const value = find(reports, "ReportValue") as XmlElement;
      expect(find(value, "ReportName")?.text).toBe("Open High Risks");
      expect(find(value, "ApplicationName")?.text).toBe("Risk Register");
      const guid = find(value, "ReportGUID")?.text ?? "";
      expect(guid).toBe(demoGuid("report/open-high-risks"));
      const records = parseXml(
        await result(
          soap11("search", "SearchRecordsByReport", {
            sessionToken: token,
            reportIdOrGuid: guid,
            pageNumber: "1",
          }),
          "SearchRecordsByReport",
        ),
      );
      expect(all(records, "Record").map((r) => r.attributes.contentId)).toEqual(["1002", "1008"]);
      expect(all(records, "FieldDefinition").map((d) => d.attributes.name)).toEqual([
        "Risk Name",
        "Risk Score",
        "Risk Owner",
        "Identified Date",
      ]);
    });

    it("searches only what the caller may read, as the REST reads decide it", async () => {
      const token = await login("gmorales", "Welcome#2026");
      const records = await search(token, searchOptions());
      const readable: string[] = [];
      for (const id of [1002, 1008]) {
        const read = await raw().read(`/core/content/contentid?id=${id}`, token);
        if (read.status === 200) readable.push(String(id));
      }
      expect(readable.length).toBe(1);
      expect(all(records, "Record").map((r) => r.attributes.contentId)).toEqual(readable);
    });
  });

  describe("field.asmx", () => {
    it("GetValueListForField answers a SelectDef with the values of the flat REST read", async () => {
      const token = await login();
      const category = field("risks/risk/category");
      const text = await result(
        soap11("field", "GetValueListForField", { sessionToken: token, fieldId: String(category.Id) }),
        "GetValueListForField",
      );
      const values = all(parseXml(text), "SelectDefValue").map((v) => ({
        Id: Number(find(v, "Id")?.text),
        Name: find(v, "Name")?.text,
      }));
      const flat = await raw().read(`/core/system/valueslistvalue/flat/valueslist/${category.Id}`, token);
      expect(values).toEqual(
        flat.body.map((e: Json) => ({ Id: e.RequestedObject.Id, Name: e.RequestedObject.Name })),
      );
      expect(values.map((v) => v.Name)).toEqual([
        "Strategic",
        "Operational",
        "Financial",
        "Compliance",
        "Technology",
      ]);
    });

    it("a field that is not a values list is a fault", async () => {
      const token = await login();
      const answer = await soap11("field", "GetValueListForField", {
        sessionToken: token,
        fieldId: String(field("risks/risk/name").Id),
      });
      expect(answer.status).toBe(500);
      expect(answer.text).toMatch(/not a values-list field/);
    });
  });
});

describe("web services with --data", () => {
  it("a login through general.asmx is committed like a REST one: the failed-login count survives a restart", async () => {
    const dir = mkdtempSync(join(tmpdir(), "egp-soap-"));
    const dataFile = join(dir, "state.db");
    const wrong = { userName: "sysadmin", instanceName: "Default", password: "wrong" };
    try {
      const first = await startEmulator({ port: 0, seed: "empty", dataFile });
      const refused = await soap11At(first.url, "general", "CreateUserSessionFromInstance", wrong);
      expect(refused.status).toBe(500);
      await first.close();
      const second = await startEmulator({ port: 0, seed: "empty", dataFile });
      expect(second.store.user(1)?.failedLogins).toBe(1);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

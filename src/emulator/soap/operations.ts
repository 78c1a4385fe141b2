import { FieldType } from "../../wire/index.ts";
import { catalogueOf } from "../catalogue/model.ts";
import { valuesListIdOf } from "../catalogue/present.ts";
import { contentOf } from "../content/model.ts";
import { HttpFailure } from "../failure.ts";
import { liveSession } from "../sessions.ts";
import type { Session, Store } from "../store.ts";
import { logIn } from "../users/login.ts";
import { param, paramElement, required, SoapFault, type WebServiceCall } from "./envelope.ts";
import { DEFAULT_PAGE_SIZE, planSearch, runSearch, type SearchPlan } from "./search.ts";
import { escapeXml, parseXml, tag, type XmlElement, XmlError } from "./xml.ts";

/*
 * The operations of the web services (`/ws/<service>.asmx`) that public clients call, each
 * answering the text of its `<Operation>Result>`. They read and write the same store as the REST
 * routes: a session opened here is a REST session and the other way round, failed logins count
 * toward the same lockout, and searches read the same records.
 */

export type Operation = (call: WebServiceCall, store: Store) => string;

const REFUSALS = {
  InvalidCredentials: "Invalid user name, instance name or password.",
  AccountLocked: "The user account is locked.",
  AccountInactive: "The user account is inactive.",
} as const;

/**
 * The domain is taken and not checked, as the REST login takes `UserDomain`: the emulator has no
 * directory to authenticate a domain account against.
 */
function createSession(call: WebServiceCall, store: Store): string {
  const outcome = logIn(store, {
    instance: required(call, "instanceName"),
    userName: required(call, "userName"),
    password: param(call, "password") ?? "",
  });
  if ("refused" in outcome) throw new SoapFault(REFUSALS[outcome.refused]);
  return outcome.session.token;
}

/** The session of `sessionToken`, as the REST routes check it (idle timeout included). */
function sessionOf(call: WebServiceCall, store: Store): Session {
  const token = param(call, "sessionToken") ?? "";
  try {
    return liveSession(store, token);
  } catch (error) {
    if (error instanceof HttpFailure) throw new SoapFault("Invalid session token");
    throw error;
  }
}

function pageNumberOf(call: WebServiceCall): number | undefined {
  const text = param(call, "pageNumber");
  if (text === undefined || text === "") return undefined;
  if (!/^\d{1,9}$/.test(text) || Number(text) < 1) {
    throw new SoapFault("pageNumber must be a positive whole number.", { client: true });
  }
  return Number(text);
}

/** The search document: escaped text or CDATA (what clients send), or markup left unescaped. */
function searchReportOf(call: WebServiceCall): XmlElement {
  const inline = paramElement(call, "searchOptions", "SearchReport");
  if (inline) return inline;
  const text = required(call, "searchOptions");
  try {
    return parseXml(text);
  } catch (error) {
    if (error instanceof XmlError) {
      throw new SoapFault(`searchOptions is not a valid search document: ${error.message}`, { client: true });
    }
    throw error;
  }
}

function executeSearch(call: WebServiceCall, store: Store): string {
  const session = sessionOf(call, store);
  const catalogue = catalogueOf(store);
  const plan = planSearch(catalogue, searchReportOf(call));
  return runSearch({ store, catalogue, content: contentOf(store), session }, plan, pageNumberOf(call));
}

function reportOf(store: Store, idOrGuid: string) {
  const catalogue = catalogueOf(store);
  const trimmed = idOrGuid.trim();
  const report = /^\d{1,9}$/.test(trimmed)
    ? catalogue.get("reports", Number(trimmed))
    : catalogue.byGuid("reports", trimmed);
  if (!report) throw new SoapFault(`The report ${trimmed} does not exist.`);
  return report;
}

/** A report's search: its level's records and its fields, in id order. */
function searchRecordsByReport(call: WebServiceCall, store: Store): string {
  const session = sessionOf(call, store);
  const catalogue = catalogueOf(store);
  const report = reportOf(store, required(call, "reportIdOrGuid"));
  const level = catalogue.level(report.LevelId);
  const module = level ? catalogue.module(level.ModuleId) : undefined;
  if (!level || !module) throw new SoapFault(`The report ${report.Guid} has no level.`);
  const display = report.FieldIds.flatMap((id) => catalogue.field(id) ?? []);
  const plan: SearchPlan = {
    module,
    levels: [level],
    display,
    filter: () => true,
    sort: [],
    pageSize: DEFAULT_PAGE_SIZE,
    maxRecords: undefined,
    pageNumber: undefined,
  };
  return runSearch({ store, catalogue, content: contentOf(store), session }, plan, pageNumberOf(call));
}

function getReports(call: WebServiceCall, store: Store): string {
  sessionOf(call, store);
  const catalogue = catalogueOf(store);
  const values = catalogue.all("reports").map((report) => {
    const level = catalogue.level(report.LevelId);
    const module = level ? catalogue.module(level.ModuleId) : undefined;
    const item = (name: string, text: string | null | undefined) => tag(name, {}, escapeXml(text ?? ""));
    return tag(
      "ReportValue",
      {},
      item("ReportName", report.Name) +
        item("ReportDescription", report.Description) +
        item("ApplicationGUID", module?.Guid) +
        item("ApplicationName", module?.Name) +
        item("ReportGUID", report.Guid),
    );
  });
  return tag("ReportValues", {}, values.join(""));
}

/** A values-list field's values as a `SelectDef` document, in list order. */
function getValueListForField(call: WebServiceCall, store: Store): string {
  sessionOf(call, store);
  const text = required(call, "fieldId");
  const field = /^\d{1,9}$/.test(text) ? catalogueOf(store).field(Number(text)) : undefined;
  if (!field) throw new SoapFault(`The field ${text} does not exist.`);
  const listId = valuesListIdOf(field);
  if (field.Type !== FieldType.ValuesList || listId === null) {
    throw new SoapFault(`The field ${field.Id} is not a values-list field.`);
  }
  const values = field.ValuesListValues.map((value, index) =>
    tag(
      "SelectDefValue",
      {},
      tag("SelectDefId", {}, String(listId)) +
        tag("Id", {}, String(value.Id)) +
        tag("Name", {}, escapeXml(value.Name)) +
        tag("Guid", {}, value.Guid) +
        tag("SortOrder", {}, String(index + 1)),
    ),
  );
  return tag("SelectDef", {}, tag("SelectDefValues", {}, values.join("")));
}

/** Services by file name, operations by name as their WSDL spells them. */
export const SERVICES: Readonly<Record<string, Readonly<Record<string, Operation>>>> = {
  general: {
    CreateUserSessionFromInstance: createSession,
    CreateDomainUserSessionFromInstance: (call, store) => {
      required(call, "usersDomain");
      return createSession(call, store);
    },
  },
  search: {
    ExecuteSearch: executeSearch,
    SearchRecordsByReport: searchRecordsByReport,
    GetReports: getReports,
  },
  field: { GetValueListForField: getValueListForField },
};

/** An operation of a service by name, compared case-insensitively, with its canonical name. */
export function operationOf(service: string, name: string): [string, Operation] | undefined {
  const operations = SERVICES[service] ?? {};
  const wanted = name.toLowerCase();
  return Object.entries(operations).find(([known]) => known.toLowerCase() === wanted);
}

import type { Routes } from "../router.ts";
import { registerAttachments } from "./attachments.ts";
import { registerContent } from "./content.ts";
import { registerContentApi } from "./content-api.ts";
import { registerDataFeeds } from "./datafeeds.ts";
import { registerGroups } from "./groups.ts";
import { registerMetadata } from "./metadata.ts";
import { registerPackages } from "./packages.ts";
import { registerRoles } from "./roles.ts";
import { registerSecurity } from "./security.ts";
import { registerSecurityParameters } from "./security-parameters.ts";
import type { SegmentContext } from "./segment-context.ts";
import { registerUsers } from "./users.ts";
import { registerValuesLists } from "./values-lists.ts";
import { registerVersion } from "./version.ts";
import { registerWeb } from "./web.ts";
import { registerWebServices } from "./web-services.ts";
import { registerWorkflow } from "./workflow.ts";

/** One entry per segment of the interface; a new segment is a new module and one line here. */
export const segments: Array<(routes: Routes, context: SegmentContext) => void | Promise<void>> = [
  (routes, { options }) => registerSecurity(routes, { scheme: options.scheme }),
  (routes) => registerVersion(routes),
  (routes) => registerMetadata(routes),
  (routes) => registerValuesLists(routes),
  (routes, context) => registerPackages(routes, context),
  (routes) => registerUsers(routes),
  (routes) => registerGroups(routes),
  // The foreign profile stands for an instance egp was not written against, which lacks them.
  (routes, { options }) => {
    if (options.profile !== "foreign") registerRoles(routes);
  },
  (routes) => registerSecurityParameters(routes),
  (routes) => registerContent(routes),
  (routes, context) => registerAttachments(routes, context),
  (routes) => registerWorkflow(routes),
  (routes) => registerDataFeeds(routes),
  (routes) => registerContentApi(routes),
  (routes) => registerWeb(routes),
  (_routes, { app, store, options }) => {
    if (options.integrations) registerWebServices(app, store);
  },
];

/*
 * Paths are written as templates, `route\`/core/system/user/${id}\``: every interpolated value goes
 * through encodeURIComponent, and the template (`/core/system/user/{}`) names the route for request
 * counting, so that counts can be compared across objects.
 */

/**
 * `api-core`: the calls the seed writes under `/api/core/` (package, history, content delete,
 * workflow); `root`: services outside the REST base path (the Content API), at the path as written.
 */
export type Family = "platform" | "api-core" | "root";

export interface Route {
  /** Relative to the base prefix, e.g. `/core/system/user/12`. */
  path: string;
  /** The same with each value replaced by `{}`. */
  template: string;
  family: Family;
}

function build(family: Family, strings: TemplateStringsArray, values: Array<string | number>): Route {
  let path = strings[0] ?? "";
  let template = path;
  values.forEach((value, index) => {
    const tail = strings[index + 1] ?? "";
    path += encodeURIComponent(String(value)) + tail;
    template += `{}${tail}`;
  });
  return { path, template, family };
}

/** A route under the release's base path (`/platformapi` or `/api`). */
export function route(strings: TemplateStringsArray, ...values: Array<string | number>): Route {
  return build("platform", strings, values);
}

/** A route the seed writes under `/api/core/`; its prefix is discovered per instance. */
export function apiCoreRoute(strings: TemplateStringsArray, ...values: Array<string | number>): Route {
  return build("api-core", strings, values);
}

/** A route outside the REST base path (`/contentapi/...`), sent at the path as written. */
export function rootRoute(strings: TemplateStringsArray, ...values: Array<string | number>): Route {
  return build("root", strings, values);
}

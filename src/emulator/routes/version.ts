import { ok } from "../envelope.ts";
import type { Routes } from "../router.ts";

export function registerVersion(routes: Routes): void {
  routes.read("/core/system/applicationinfo/version", ({ store }) =>
    ok({ Version: store.data.release, InstanceName: store.data.instance }),
  );
}

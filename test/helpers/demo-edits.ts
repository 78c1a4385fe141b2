import { catalogueOf } from "../../src/emulator/catalogue/model.ts";
import type { Emulator } from "../../src/emulator/index.ts";

/** Changes the demo seeds' escalation rule's condition on an instance, as someone editing it by hand would. */
export function editRule(e: Emulator, condition: string): void {
  const catalogue = catalogueOf(e.store);
  const rule = catalogue.all("eventRules").find((r) => r.Name === "Escalate critical risks");
  if (!rule) throw new Error("the demo seed has no escalation rule");
  catalogue.put("eventRules", { ...rule, Condition: condition });
  e.store.changed();
}

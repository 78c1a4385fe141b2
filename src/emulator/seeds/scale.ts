import type { Store } from "../store.ts";
import { parameter, seedUser } from "./fixed.ts";

/** Deterministic bulk data for benchmarks. */
export function seedScaleUsers(store: Store, spec: { users: number; parameters: number }): void {
  for (let i = 0; i < spec.parameters; i++) {
    const id = store.nextId("securityParameter");
    store.data.securityParameters[String(id)] = parameter(id, {
      Name: `Scale Parameter ${String(i + 1).padStart(4, "0")}`,
    });
  }
  for (let i = 0; i < spec.users; i++) {
    const n = String(i + 1).padStart(6, "0");
    seedUser(store, { FirstName: `First${n}`, LastName: `Last${n}`, UserName: `user${n}` }, `Scale#${n}pw`);
  }
}

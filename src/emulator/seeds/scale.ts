import type { Store } from "../store.ts";
import { parameter, seedUser } from "./fixed.ts";

/** Deterministic bulk data for benchmarks: P parameters, N users with one e-mail contact each. */
export function seedScaleUsers(store: Store, spec: { users: number; parameters: number }): void {
  for (let i = 0; i < spec.parameters; i++) {
    const id = store.nextId("securityParameter");
    store.data.securityParameters[String(id)] = parameter(id, {
      Name: `Scale Parameter ${String(i + 1).padStart(4, "0")}`,
    });
  }
  for (let i = 0; i < spec.users; i++) {
    const n = String(i + 1).padStart(6, "0");
    const record = seedUser(
      store,
      { FirstName: `First${n}`, LastName: `Last${n}`, UserName: `user${n}` },
      `Scale#${n}pw`,
    );
    record.contacts = [
      {
        Id: store.nextId("contact"),
        ContactType: 7,
        ContactSubType: 2,
        IsDefault: true,
        Value: `user${n}@example.com`,
      },
    ];
  }
}

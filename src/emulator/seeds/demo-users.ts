import type { Store } from "../store.ts";
import { seedUser } from "./fixed.ts";

/** Users, contacts and tasks of the demo seeds. */
export function seedDemoUsers(store: Store, variant: "dev" | "prod"): void {
  seedUser(
    store,
    { FirstName: "Alice", LastName: "Nguyen", UserName: "anguyen", Title: "Risk Manager" },
    "Welcome#2026",
  );
  if (variant === "dev") {
    seedUser(
      store,
      { FirstName: "Bob", LastName: "Okafor", UserName: "bokafor", Title: "Control Owner" },
      "Welcome#2026",
    );
  }
}

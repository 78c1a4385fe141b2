import { type HistoryEntry, readHistory } from "../apply/history.ts";
import { openProjectStore } from "../compose/project-store.ts";
import { environmentOf, readRepository } from "../manifest/index.ts";
import type { ReleaseStore } from "../store/index.ts";

/*
 * `egp history` for the CLI and a library caller: what was installed on an environment, newest
 * first, from the release store (apply's install records, src/apply/history.ts), so that any
 * machine with the repository sees the same history.
 */

export async function installHistory(
  dir: string,
  env: string,
  given?: ReleaseStore,
): Promise<{ history: HistoryEntry[]; store: string }> {
  // The environment must exist: a typo should not read as "no history".
  environmentOf({ ...(await readRepository(dir)), manifests: [] }, env);
  const store = given ?? (await openProjectStore(dir));
  return { history: await readHistory(store, env), store: store.location };
}

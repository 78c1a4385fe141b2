import { copyFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { Emulator } from "../../src/emulator/index.ts";
import { packageById, packagesOf } from "../../src/emulator/packages/model.ts";
import { createClient, type PackageObjectRef } from "../../src/index.ts";

/*
 * A source instance that hands egp another file than the package it asked for: what a package's
 * inspection and verification have to catch. The emulator runs in the test's process, with its
 * package files in `workDir`.
 */

/**
 * A package of `objects` generated on `emulator` (whatever its profile: the wait is on its store,
 * not on the package reads the foreign profile lacks): its file in `workDir`.
 */
export async function generatedOn(
  emulator: Emulator,
  workDir: string,
  objects: readonly PackageObjectRef[],
  password: string,
): Promise<string> {
  const client = createClient({ url: emulator.url, instance: "Default", username: "sysadmin", password });
  try {
    const id = await client.packages.create({
      Name: "Another package",
      Description: "",
      PreparedBy: "test",
      PackageObjects: [...objects],
    });
    await client.packages.generate(id);
    for (let i = 0; packageById(emulator.store, id)?.Status !== "Ready"; i++) {
      if (i > 500) throw new Error("generation did not finish");
      await sleep(20);
    }
    return join(workDir, packageById(emulator.store, id)?.File as string);
  } finally {
    await client.close();
  }
}

/** Each package egp generates on `emulator` is swapped, as soon as it is ready, for `file`. */
export function swapGenerated(emulator: Emulator, workDir: string, file: string): { swapped: number[] } {
  const swapped: number[] = [];
  const changed = emulator.store.changed.bind(emulator.store);
  emulator.store.changed = () => {
    for (const record of Object.values(packagesOf(emulator.store).byId)) {
      const ours = record.Description?.includes("[egp ");
      if (!ours || record.Status !== "Ready" || !record.File || swapped.includes(record.Id)) continue;
      copyFileSync(file, join(workDir, record.File));
      record.Size = statSync(file).size;
      swapped.push(record.Id);
    }
    changed();
  };
  return { swapped };
}

import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/*
 * The packages `release create` made on its source, by package name, kept in `.egp/release-create/
 * <name>.json` from the moment an id comes back until the release is stored. A run killed (or
 * ended by an error) after that reuses the package instead of leaving a duplicate on the source;
 * the journal goes once the release is stored.
 */

const folderOf = (stateDir: string) => join(stateDir, "release-create");
const fileOf = (stateDir: string, name: string) => join(folderOf(stateDir), `${name}.json`);

export class CreateJournal {
  readonly #file: string;
  readonly #ids: Record<string, number>;

  constructor(stateDir: string, name: string) {
    this.#file = fileOf(stateDir, name);
    this.#ids = readIds(this.#file);
  }

  /** The id of the package `pkg` a previous run created, if it recorded one. */
  idOf(pkg: string): number | undefined {
    return Object.hasOwn(this.#ids, pkg) ? this.#ids[pkg] : undefined;
  }

  /** Records the id before anything else is asked of the package. */
  record(pkg: string, id: number): void {
    this.#ids[pkg] = id;
    mkdirSync(join(this.#file, ".."), { recursive: true, mode: 0o700 });
    writeFileSync(this.#file, JSON.stringify(this.#ids), { mode: 0o600 });
  }

  close(): void {
    rmSync(this.#file, { force: true });
  }
}

function readIds(file: string): Record<string, number> {
  try {
    const value = JSON.parse(readFileSync(file, "utf8")) as unknown;
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
    return Object.fromEntries(
      Object.entries(value).filter((entry): entry is [string, number] => Number.isSafeInteger(entry[1])),
    );
  } catch {
    return {};
  }
}
